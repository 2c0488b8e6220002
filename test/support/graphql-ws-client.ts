// The test kit's graphql-ws client (one implementation: plugins outside the repository test their
// subscriptions with it too).
export { connect, disposeClients, settle, subscribe, type TestSubscription } from '@filigrane/testing';
