import { describe, expect, it } from 'vitest';
import { html, safeHref } from './html.js';
import { safeNext } from './login.js';

describe('html tag', () => {
  it('escapes every interpolated value, including inside attributes and arrays', () => {
    const evil = `"'><script>alert(1)</script>&\``;
    const out = html`<a title="${evil}">${[evil, 1, null, undefined, false]}</a>`.value;
    expect(out).toBe(
      '<a title="&quot;&#39;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;&#96;">&quot;&#39;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;&#96;1</a>',
    );
  });

  it('inserts fragments built by the tag as markup, once', () => {
    const inner = html`<b>${'<i>'}</b>`;
    expect(html`<p>${inner}</p>`.value).toBe('<p><b>&lt;i&gt;</b></p>');
  });
});

describe('link and return-path guards', () => {
  it('allows only same-origin paths and http(s) URLs as links', () => {
    expect(safeHref('/console/x')).toBe('/console/x');
    expect(safeHref('https://cv.example/a.pdf')).toBe('https://cv.example/a.pdf');
    for (const bad of ['javascript:alert(1)', 'data:text/html,x', '//evil.example', 'vbscript:x', 42])
      expect(safeHref(bad)).toBeNull();
  });

  it('returns to console paths only, after resolving dot segments', () => {
    expect(safeNext('/console/reviews?state=approved')).toBe('/console/reviews?state=approved');
    for (const bad of [
      '/console/../sandbox/v1/reset',
      '//evil.example/console',
      '/\\evil',
      'https://evil.example/console',
      '/consoleX',
      undefined,
    ]) {
      expect(safeNext(bad)).toBe('/console/tenants');
    }
  });
});
