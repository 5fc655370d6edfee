// The console's one escaping helper: the `html` tag escapes every interpolated value unless it is
// itself an `Html` fragment built by this tag, so data can never become markup by accident.

export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

function render(v: unknown): string {
  if (v instanceof Html) return v.value;
  if (Array.isArray(v)) return v.map(render).join('');
  if (v === null || v === undefined || v === false) return '';
  const text =
    typeof v === 'string'
      ? v
      : typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint'
        ? v.toString()
        : (JSON.stringify(v) ?? '');
  return text.replace(/[&<>"'`]/g, (ch) => ENTITIES[ch]);
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new Html(out);
}

/** A link target that is safe to put in href: same-origin paths and http(s) URLs only. */
export function safeHref(url: unknown): string | null {
  if (typeof url !== 'string') return null;
  if (url.startsWith('/') && !url.startsWith('//')) return url;
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}

/** Pretty JSON for <pre> blocks (escaped when interpolated like any other value). */
export const prettyJson = (v: unknown): string => JSON.stringify(v, null, 2) ?? 'null';

/** Path segment for console links built from ids that come from data. */
export const seg = (v: string): string => encodeURIComponent(v);
