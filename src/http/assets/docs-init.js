// Swagger UI over both contracts and the control API. Its data (the documents' URLs and names, and the
// contract's example idempotency keys) sits in the page's #docs-config JSON block.
(function () {
  var config = JSON.parse(document.getElementById('docs-config').textContent);
  var urls = config.urls;
  // the contract's example idempotency keys: a second Execute with one of them would be a silent replay
  var exampleKeys = config.exampleKeys;
  function freshKey() {
    return (
      'docs-' + (crypto.randomUUID ? crypto.randomUUID() : String(Date.now()) + Math.random().toString(16).slice(2))
    );
  }
  var wanted = new URLSearchParams(location.search).get('api');
  var primary = urls.filter(function (u) {
    return u.url === '/docs/' + wanted + '.json';
  })[0];
  window.ui = SwaggerUIBundle({
    urls: urls,
    'urls.primaryName': primary ? primary.name : urls[0].name,
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: 'StandaloneLayout',
    validatorUrl: null,
    requestInterceptor: function (req) {
      if (typeof req.body === 'string' && req.body.indexOf('idempotencyKey') >= 0) {
        try {
          var body = JSON.parse(req.body);
          if (body && exampleKeys.indexOf(body.idempotencyKey) >= 0) {
            body.idempotencyKey = freshKey();
            req.body = JSON.stringify(body);
          }
        } catch (e) {
          // not JSON: sent as typed
        }
      }
      return req;
    },
    // Swagger UI warns on any jsonSchemaDialect but the OAS default; the served JSON keeps it as written.
    responseInterceptor: function (res) {
      var isContract = urls.some(function (u) {
        return (res.url || '').endsWith(u.url);
      });
      if (isContract && res.body && res.body.jsonSchemaDialect) {
        delete res.body.jsonSchemaDialect;
        res.text = res.data = JSON.stringify(res.body);
      }
      return res;
    },
  });
})();
