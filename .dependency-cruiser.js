// The import rules of src/ and tracker/, checked by `npm run lint` (README "Architecture").
// No circle of imports anywhere, type-only imports included. src/core's folders stand in layers:
// a file may import its own folder and the layers below it, never one above. Core imports no other
// part of src/; a provider adapter imports only core's contracts (jobs, the shared vocabulary and
// helpers, ports.ts); the browser tracker imports nothing from src/.

/** src/core's layers, lowest first: folders, and the root files that stand on their own layer. */
const CORE_LAYERS = [
  ['shared'],
  ['jobs'],
  ['entities'],
  ['db'],
  ['ports.ts'],
  ['deps.ts'],
  ['settings-cache.ts'],
  ['outbound', 'notifications', 'email'],
  ['ledger'],
  ['rewards'],
  ['integrations'],
  ['payouts'],
  ['attribution'],
  ['refunds'],
  ['sales'],
  ['webhooks'],
  ['reporting'],
  ['programs'],
  ['staff', 'audit'],
  ['applications'],
  ['imports'],
  ['job-results.ts', 'core-caches.ts'],
];

const place = (name) => (name.endsWith('.ts') ? `^src/core/${name.replace('.', '\\.')}$` : `^src/core/${name}/`);
const anyOf = (names) => `(${names.map(place).join('|')})`;

const layerRules = CORE_LAYERS.slice(0, -1).map((layer, i) => ({
  name: `core-layer-${layer.join('+')}`,
  comment: `src/core/${layer.join(', ')} may not import a layer above it (${CORE_LAYERS.slice(i + 1)
    .flat()
    .join(', ')})`,
  severity: 'error',
  from: { path: anyOf(layer) },
  to: { path: anyOf(CORE_LAYERS.slice(i + 1).flat()) },
}));

export default {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'A circle of imports (type-only ones included): move the shared part down a layer.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'core-in-a-layer',
      comment: 'Every file of src/core stands in a layer of CORE_LAYERS (a new folder is added there).',
      severity: 'error',
      from: { path: '^src/core/', pathNot: anyOf(CORE_LAYERS.flat()) },
      to: {},
    },
    ...layerRules,
    {
      name: 'core-imports-only-core',
      comment: 'Core knows no HTTP, queue, worker, provider or process code: they are handed in as ports.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^src/', pathNot: '^src/core/' },
    },
    {
      name: 'providers-import-core-contracts',
      comment: 'A provider adapter turns a delivery into core jobs: it imports jobs, shared and ports.ts only.',
      severity: 'error',
      from: { path: '^src/providers/' },
      to: { path: '^src/core/', pathNot: '^src/core/(jobs/|shared/|ports\\.ts$)' },
    },
    {
      name: 'providers-no-outer',
      comment: 'Adapters are pure: no HTTP, queue or worker code.',
      severity: 'error',
      from: { path: '^src/providers/' },
      to: { path: '^src/(http|queue|workers|cli)/' },
    },
    {
      name: 'queue-below-workers-and-http',
      comment: 'The queue is used by the HTTP routes and the workers, and uses neither.',
      severity: 'error',
      from: { path: '^src/queue/' },
      to: { path: '^src/(http|workers|cli|mcp)/' },
    },
    {
      name: 'mcp-peer-of-http',
      comment:
        'The MCP server stands beside the HTTP edge: core, the queue and the wire forms (http/wire, the row schemas of http/openapi/entity-rows.ts), nothing else of http, no worker or CLI code.',
      severity: 'error',
      from: { path: '^src/mcp/' },
      to: { path: '^src/(http|workers|cli|providers)/', pathNot: '^src/http/(wire/|openapi/entity-rows\\.ts$)' },
    },
    {
      name: 'mcp-used-by-its-route-only',
      comment: 'Only the HTTP route that serves /mcp imports the MCP server.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(mcp/|http/routes/mcp\\.ts$)' },
      to: { path: '^src/mcp/' },
    },
    {
      name: 'tracker-standalone',
      comment: 'The browser tracker is its own package: nothing from src/.',
      severity: 'error',
      from: { path: '^tracker/' },
      to: { path: '^src/' },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/|(^|/)dist/' },
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
