/** `--name value`, `--name=value` and bare `--flag` (true); everything else is positional. */
export function parseArgv(argv: string[]): { values: Record<string, string | true>; positionals: string[] } {
  const values: Record<string, string | true> = {};
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const next = argv[i + 1];
    if (a === '-h') values.help = true;
    else if (a.startsWith('--')) {
      const [name = '', inline] = a.slice(2).split(/=(.*)/s, 2);
      if (inline !== undefined) values[name] = inline;
      else if (next !== undefined && !next.startsWith('--')) {
        values[name] = next;
        i++;
      } else values[name] = true;
    } else positionals.push(a);
  }
  return { values, positionals };
}
