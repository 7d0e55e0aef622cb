// Which folder may import which (ARCHITECTURE.md). `npm run check` runs this; a violation fails it.

// The product's folders from the bottom up: a folder imports its own files and the rows below it,
// never its own row's other folders or anything above. bench/ and test/ may import anything.
const layers = [
  ['domain'],
  ['schemas'],
  ['platform'],
  ['producers', 'projections', 'stores', 'sandbox-runtime'],
  ['consumers', 'jobs', 'api', 'sandbox-host'],
  ['infra'],
];

const product = layers.flat();
const folders = (names) => `^(${names.join('|')})/`;

const upward = layers.flatMap((row, index) =>
  row.map((folder) => ({
    name: `${folder}-imports-only-below`,
    comment: `${folder}/ may import ${layers.slice(0, index).flat().join(', ') || 'nothing of ours'} (ARCHITECTURE.md)`,
    severity: 'error',
    from: { path: folders([folder]) },
    to: { path: folders(product), pathNot: folders([folder, ...layers.slice(0, index).flat()]) },
  })),
);

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...upward,
    {
      name: 'no-circular',
      comment: 'a module reaches itself through its imports',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'packages-stand-alone',
      comment: 'a published package (packages/) is installed without the platform: it imports none of it',
      severity: 'error',
      from: { path: '^packages/' },
      to: { path: folders([...product, 'test', 'bench', 'infra']) },
    },
    {
      name: 'product-not-from-tests',
      comment: 'test/ and bench/ use the product, never the other way round',
      severity: 'error',
      from: { path: folders(product) },
      to: { path: folders(['test', 'bench']) },
    },
  ],
  options: {
    exclude: { path: '(^|/)(node_modules|dist)/|^(\\.venv|\\.stack|\\.sandboxes|\\.sandboxes-[0-9]+)/' },
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
