import type { Server } from 'http';
import request from 'supertest';

/**
 * What every platform must serve at the default mount `/echomq`: the redirect to `/echomq/` (query
 * kept), the page with a CSP that allows no inline script, and its files by exact name only.
 */
export async function expectDashboardPage(server: Server): Promise<void> {
  const http = request(server);
  const redirect = await http.get('/echomq?token=abc');
  expect(redirect.status).toBe(302);
  expect(redirect.headers.location).toBe('/echomq/?token=abc');

  const page = await http.get('/echomq/');
  expect(page.status).toBe(200);
  expect(page.headers['content-type']).toMatch(/^text\/html/);
  expect(page.headers['x-content-type-options']).toBe('nosniff');
  const csp = page.headers['content-security-policy'];
  expect(csp).toContain("script-src 'self'");
  expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
  expect(csp).toContain("require-trusted-types-for 'script'");
  expect(page.text).toContain('<script');
  // The one inline block allowed is data the page draws its first frame from (never run: CSP aside,
  // a script of type application/json is not executed).
  expect(page.text).not.toMatch(/<script(?![^>]*\bsrc=)(?![^>]*type="application\/json")[^>]*>/);
  expect(page.text).not.toMatch(/\son[a-z]+=|https?:\/\//);

  const js = await http.get('/echomq/assets/app.js');
  expect(js.status).toBe(200);
  expect(js.headers['content-type']).toMatch(/^text\/javascript/);
  expect(js.headers['x-content-type-options']).toBe('nosniff');
  expect(js.text.length).toBeGreaterThan(0);
  const css = await http.get('/echomq/assets/app.css');
  expect(css.status).toBe(200);
  expect(css.headers['content-type']).toMatch(/^text\/css/);
  for (const bad of ['/echomq/assets/index.html', '/echomq/assets/..%2Fdashboard.controller.ts', '/echomq/assets/nope.js']) {
    expect([bad, (await http.get(bad)).status]).toEqual([bad, 404]);
  }
}
