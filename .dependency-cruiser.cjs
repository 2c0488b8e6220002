// Import boundaries (issue 17): packages never import plugins or the gateway; a plugin (its sources and its tests) may take
// from another plugin only what that plugin's public module (src/index.ts, built to dist/src/index.js)
// exports, and a public module exports no entity. `npm run lint` runs this; CI runs lint before the tests.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'plugin-internals',
      comment: "A plugin imports another plugin only through its public module (tokens, interfaces, extension points).",
      severity: 'error',
      from: { path: '^plugins/([^/]+)/(src|test)/' },
      to: {
        path: '^plugins/([^/]+)/',
        pathNot: ['^plugins/$1/', '^plugins/[^/]+/(src/index\\.ts|dist/src/index\\.(js|d\\.ts))$'],
      },
    },
    {
      name: 'third-party-internals',
      comment: "The examples are third-party plugins: the plugin API and other plugins' public modules (tests also the test kit), as the scaffold's lint holds a plugin outside the repository.",
      severity: 'error',
      from: { path: '^examples/([^/]+)/(src|test)/' },
      to: {
        path: '^(packages|plugins|gateway)/',
        pathNot: ['^packages/(plugin-api|testing)/(src/index\\.ts|dist/src/index\\.(js|d\\.ts))$', '^plugins/[^/]+/(src/index\\.ts|dist/src/index\\.(js|d\\.ts))$'],
      },
    },
    {
      name: 'public-module-exports-entity',
      comment: "A plugin's public module never exports its entities (tables are the owner's; others call its services).",
      severity: 'error',
      from: { path: '^plugins/[^/]+/src/index\\.ts$' },
      to: { path: '\\.entit(y|ies)\\.ts$' },
    },
    {
      name: 'plugin-imports-gateway',
      comment: 'Plugins and their tests never import the gateway (it assembles them): tests boot a server with @filigrane/testing.',
      severity: 'error',
      from: { path: '^plugins/[^/]+/(src|test)/' },
      to: { path: '^gateway/' },
    },
    {
      name: 'package-imports-plugin',
      comment: 'Dependencies point downwards: packages (the server core and the test kit included) never import plugins; the gateway and tests choose them.',
      severity: 'error',
      from: { path: '^packages/' },
      to: { path: '^plugins/' },
    },
    {
      name: 'package-imports-gateway',
      comment: 'Packages never import the gateway: it is the composition on top (plugins -> testing -> gateway -> plugins was a cycle).',
      severity: 'error',
      from: { path: '^packages/' },
      to: { path: '^gateway/' },
    },
  ],
  options: {
    // Built files are reached (a deep import of another plugin's dist/ is a violation) but not walked.
    doNotFollow: { path: ['node_modules', '(^|/)dist/'] },
    exclude: { path: '(^|/)node_modules/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['main', 'types'],
    },
  },
};
