/** `svc/proxy`: the enforcement spine (Enforcer) and the loopback HTTP proxy built on it. */
export { Enforcer, type EnforcerOptions, type RequestOptions, type Decided, type Executed } from './proxy/enforcer.js';
export { buildProxyApp, MAX_BODY_BYTES } from './proxy/app.js';
export { startProxy, type ProxyOptions, type RunningProxy } from './proxy/start-proxy.js';
export { decisionBody, type DecisionBody } from './proxy/responses.js';
export { PROXY_ERROR_STATUS, type ProxyErrorCode, type ErrorBody } from './proxy/error-body.js';
export { assertLoopbackBind, isLoopbackHostHeader, isAllowedOrigin } from './proxy/loopback-guard.js';
