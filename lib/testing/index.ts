export { startTestServer } from './test-server';
export type { TestServer, TestServerOptions } from './test-server';
