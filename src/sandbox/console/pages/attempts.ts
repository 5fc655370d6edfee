// The attempts of one webhook delivery: a row per attempt (time, result, duration, automatic or by
// hand) that opens to what was sent (headers, body, signature) and what came back (status, the
// first few KiB of the answer).

import type { Attempt as WebhookAttempt } from '../../../domain/webhooks/delivery.js';
import { time } from '../components.js';
import { html, type Html } from '../html.js';

/** An attempt as the control API lists it. */
export type Attempt = Omit<WebhookAttempt, 'manual'> & { manual?: boolean };

function sent(a: Attempt): Html {
  const headers = Object.entries(a.requestHeaders ?? {})
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
  return html`<div class="attempt-detail">
    <h4>Request <span class="muted small">POST ${a.url ?? '(no URL)'}</span></h4>
    <pre tabindex="0" class="raw" data-field="request-headers">${headers || '(nothing was sent)'}</pre>
    <pre tabindex="0" class="raw" data-field="attempt-body">${a.body ?? ''}</pre>
    <h4>Response ${a.statusCode !== null ? html`<span class="muted small">HTTP ${a.statusCode}</span>` : ''}</h4>
    ${
      a.responseBody
        ? html`<pre tabindex="0" class="raw" data-field="response-body">${a.responseBody}</pre>${a.responseTruncated ? html`<p class="help">Only the first 4 KiB of the answer were read; the connection was then closed.</p>` : ''}`
        : html`<p class="muted small">${a.statusCode === null ? (a.error ?? 'No answer.') : 'Empty body.'}</p>`
    }
  </div>`;
}

export function attemptsTable(deliveryId: string, list: readonly Attempt[]): Html {
  if (list.length === 0) return html`<p class="muted">No attempt yet.</p>`;
  return html`<ol class="attempts">${[...list].reverse().map((a) => {
    const ok = a.statusCode !== null && a.statusCode >= 200 && a.statusCode < 300;
    return html`<li data-attempt="${a.attempt}">
      <details>
        <summary><span class="n">#${a.attempt}</span> ${time(a.at)}
          ${a.statusCode !== null ? html`<span class="badge ${ok ? 'good' : 'bad'}">HTTP ${a.statusCode}</span>` : html`<span class="badge bad">no answer</span>`}
          <span class="num">${a.durationMs} ms</span>${a.manual ? html` <span class="badge neutral">redelivery</span>` : ''}
          ${a.error ? html`<span class="error-text">${a.error}</span>` : ''}
          <span class="sr-only">of delivery ${deliveryId}</span></summary>
        ${sent(a)}
      </details>
    </li>`;
  })}</ol>`;
}
