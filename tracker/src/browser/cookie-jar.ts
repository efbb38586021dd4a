export type CookieJar = {
  read(name: string): string | null;
  /** `maxAgeSeconds` becomes `Max-Age`; the cookie is always `Path=/; SameSite=Lax`. */
  write(name: string, value: string, maxAgeSeconds: number): void;
  remove(name: string): void;
};

/**
 * First-party cookies on `document.cookie`. With a `domain`, a written cookie is read back and
 * rewritten host-only when the browser refused the `Domain` (a public suffix such as `co.uk`,
 * see `computeCookieDomain`).
 */
export function createCookieJar(domain: string | null, secure: boolean): CookieJar {
  const flags = '; Path=/; SameSite=Lax' + (secure ? '; Secure' : '');

  const read = (name: string): string | null => {
    for (const pair of document.cookie.split('; ')) {
      const eq = pair.indexOf('=');
      if (eq > 0 && pair.slice(0, eq) === name) {
        try {
          return decodeURIComponent(pair.slice(eq + 1)) || null;
        } catch {
          return null;
        }
      }
    }
    return null;
  };

  const set = (name: string, value: string, maxAge: number, withDomain: boolean): void => {
    document.cookie = `${name}=${encodeURIComponent(value)}; Max-Age=${maxAge}${flags}${withDomain ? '; Domain=' + domain : ''}`;
  };

  return {
    read,
    write(name, value, maxAgeSeconds) {
      const maxAge = Math.max(0, Math.round(maxAgeSeconds));
      if (domain) {
        set(name, value, maxAge, true);
        if (read(name) === value) return;
      }
      set(name, value, maxAge, false);
    },
    remove(name) {
      // Both variants: a cookie may have been written host-only by the public-suffix fallback.
      if (domain) set(name, '', 0, true);
      set(name, '', 0, false);
    },
  };
}
