// @filigrane/testing: end-to-end tests of a plugin against a real Filigrane (docs/plugins.md, "Testing").
export { startTestServer, selectPlugins, installedPlugin, IDENTITY_PLUGINS, type TestPlugin, type TestServer, type TestServerOptions, type TestAccount, type NewTestAccount } from './test-server.js';
export { call, type CallOptions, type CallResult } from '@filigrane/server';
export { eventually } from './eventually.js';
export { connect, disposeClients, settle, subscribe, type TestSubscription } from './graphql-subscriptions.js';
export { serveSite, type TestSite, type SitePage, type SiteRequest } from './test-site.js';
export { ManualClock } from '@filigrane/core';
