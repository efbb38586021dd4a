/** Reads the whole of stdin (nothing when it is a terminal). */
async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return '';
  let s = '';
  for await (const chunk of process.stdin) s += chunk;
  return s.trim();
}

/**
 * A secret for the admin CLI, from the environment variable named by `--<flag>` or from stdin; never
 * a flag value, which would land in shell history and process lists.
 */
export async function readSecret(
  values: Record<string, unknown>,
  flag = 'secret-env',
  what = 'the signing secret',
): Promise<string> {
  const envName = values[flag] as string | undefined;
  const secret = envName ? process.env[envName] : await readStdin();
  if (!secret)
    throw new Error(`Give ${what} through --${flag} VAR or on stdin (never as a flag: it would land in shell history)`);
  return secret;
}
