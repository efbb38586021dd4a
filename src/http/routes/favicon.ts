import type { H3 } from 'h3';
import { defineOperation } from '../openapi/operation.ts';

/**
 * The service's icon, for the dashboard, the partner portal and the API reference page (which name
 * /favicon.svg) and for browsers that ask for /favicon.ico on their own. The same two files are the
 * docs site's (docs/public/; a test keeps them equal). The ICO holds one 32×32 PNG of the SVG.
 */
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#3451b2"/><path d="M8 22l6-6 4 4 6-8" fill="none" stroke="#fff" stroke-width="3" stroke-linecap="round" stroke-linejoin="round"/><circle cx="24" cy="12" r="2.5" fill="#fff"/></svg>';
export const FAVICON_ICO = Buffer.from(
  'AAABAAEAICAAAAEAIADaAgAAFgAAAIlQTkcNChoKAAAADUlIRFIAAAAgAAAAIAgGAAAAc3p69AAAAo9JREFUeJzEl91LFFEYxp9znPWjQo0+SIm0hSgqQ8JEEArLCLf82BsjL8rCm67SixC66A8ocKWroChvCrab1c0+qBuLgspaFmILAtOgD60ulCJrc/Z03pEZZ23Xna2dmedmz8x7OL/nPefd4bwKTKpuC5XmsbweCNSBiWoGthY5kID4DMGiYHiiCjUQHfRP6zGmD2rawk1y4mXGWDlslBDio0ys6/lgyx3DwM7W4QOcJ+7CSQn4yASrOji8Mj9fjUlXZXBQtBOznoIqxeNJHHMaTqKjLvwdP6pwyIJzScTmgrlngNiKrMIKuCRic7gsBTapeIUHDXXztT3ydBIz3+JwzECJhAcvNGBVaYH2fLJjCw6fGklpwpYj2FdfbsBJNPbtWZ9yri07sKmy2PLcnBsoW1P0V7aqKvD4xRRyZqB2x2r5KQVGX35Neu+Rn7XzvbuwrHB+2V9xFZeCb3Dv0Qd8+jKbGwOnu7aj3bdRG1+/+RaBqzEj1n18GzZ7S4znM30RPHw2ueR6WRkww0kdzV7tl0zsrl2H9qZKI3bj9nhGeFYGuju3JsHNJpYXKWisX7hGvB6bQWAgZmldSwZ65Nbq2ZKCt8bBODMybm3cYMR+/FTRe24Uc3PCytKZDVDmZvi18Bj6B15pY1VN4Mghb9L8s/2RtAWXtYHFZ07nqsNJfVdi2r9BN0jxBxbO3ZKBvfI7boYvrnhd9G7i/XdtHLr/Dtkq/Q6whSFllgqu61/ABqbGH05bLf79Ff8NyKQla8BOsC4ur8dTcEuSzWUzEoVLIjaX92PXDBCby17tomwSpuGwiElsLhvFCSH4CTgs2Zh0Elu7kkWGmkPUq1G7BJulMagvDLUMaUbMQTfa8z8AAAD//wAhMEsAAAAGSURBVAMA8AX83AGjj2wAAAAASUVORK5CYII=',
  'base64',
);

const CACHE = 'public, max-age=86400';

/** GET /favicon.ico and GET /favicon.svg. */
export function registerFavicon(app: H3): void {
  app.get(
    '/favicon.ico',
    () =>
      new Response(new Uint8Array(FAVICON_ICO), {
        headers: { 'content-type': 'image/x-icon', 'cache-control': CACHE },
      }),
  );
  app.get(
    '/favicon.svg',
    () => new Response(FAVICON_SVG, { headers: { 'content-type': 'image/svg+xml', 'cache-control': CACHE } }),
  );
}

const icon = (path: string, contentType: string) =>
  defineOperation({
    method: 'get',
    path,
    operationId: path === '/favicon.ico' ? 'getFaviconIco' : 'getFaviconSvg',
    tag: 'Service',
    security: [],
    summary: `The service's icon (${contentType})`,
    responses: { 200: { description: "The service's icon", contentType } },
    errors: [],
  });

export const faviconOperations = [icon('/favicon.ico', 'image/x-icon'), icon('/favicon.svg', 'image/svg+xml')];
