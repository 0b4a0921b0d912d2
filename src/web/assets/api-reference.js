/* global window */
// Starts Swagger UI on /docs/api. A file, not an inline script: the page's CSP allows only 'self'.
window.addEventListener('DOMContentLoaded', function () {
  window.SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#api-reference',
    deepLinking: true,
    // Read-only reference: no "Try it out" (keys stay out of web pages), no call to an outside validator.
    supportedSubmitMethods: [],
    validatorUrl: null,
    defaultModelsExpandDepth: 0,
  });
});
