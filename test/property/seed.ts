/** The seed of the generated sequences in CI (fixed), or `PROPERTY_SEED` to replay the one a failure printed. */
export const PROPERTY_SEED = Number(process.env.PROPERTY_SEED ?? 20261206);
