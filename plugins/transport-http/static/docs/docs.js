// The docs page: Swagger UI renders the OpenAPI document, the AsyncAPI React
// component the WebSocket protocol; both from this server, nothing from the network.
(function () {
  // The page is served at <prefix>/docs; the documents live at <prefix>/api/v1/.
  const base = location.pathname.replace(/\/docs\/?$/, '');
  const openapiUrl = `${base}/api/v1/openapi.json`;
  const asyncapiUrl = `${base}/api/v1/asyncapi.json`;
  let asyncapiShown = false;

  window.SwaggerUIBundle({ url: openapiUrl, dom_id: '#openapi', deepLinking: false, validatorUrl: null, tryItOutEnabled: false });

  function show(tab) {
    for (const s of document.querySelectorAll('.sawt-docs-tab')) s.hidden = s.id !== tab;
    for (const a of document.querySelectorAll('[data-tab]')) a.classList.toggle('active', a.dataset.tab === tab);
    if (tab === 'websocket' && !asyncapiShown) {
      asyncapiShown = true;
      window.AsyncApiStandalone.render({ schema: { url: asyncapiUrl, requestOptions: {} }, config: { show: { sidebar: true, errors: true } } }, document.getElementById('asyncapi'));
    }
  }
  const current = () => (location.hash === '#websocket' ? 'websocket' : 'http');
  window.addEventListener('hashchange', () => show(current()));
  show(current());
})();
