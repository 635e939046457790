const ts = require('typescript');
const { createHash } = require('node:crypto');
const options = { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, sourceMap: true, inlineSources: true, isolatedModules: true, esModuleInterop: true, resolveJsonModule: true };
module.exports = {
  getCacheKey(source, path) { return createHash('sha1').update(source).update(path).update('v1').digest('hex'); },
  process(source, path) {
    const out = ts.transpileModule(source, { compilerOptions: options, fileName: path });
    return { code: out.outputText, map: out.sourceMapText };
  },
};
