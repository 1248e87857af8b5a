import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join, posix, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/**
 * Builds `@headspace/subscriber-sdk` as a package directory (`package.json`, `README.md`, `dist/`;
 * `npm pack` it) that installs on its own (no `@headspace/*` package, no dependency at all), with the TypeScript compiler the repo
 * already has rather than a bundler:
 *
 * - JS (CommonJS, ES2022): the SDK's sources; the few runtime values it takes from workspace
 *   packages (the webhook signature check) are vendored — the files that declare them are emitted
 *   under `dist/vendor/<package>/` and the SDK's imports point there. A vendored file may import
 *   only Node built-ins and other files it brings along, or the build fails.
 * - Types: `tsc` declarations, except `headspace-event.d.ts`, which is written from the checker:
 *   every event's data type expanded from its zod contract into plain TypeScript, so the
 *   declarations need neither `@headspace/contracts` nor zod.
 * - Then every emitted file is checked: no `@headspace/` specifier, no `require` of anything but
 *   Node built-ins and relative files, and the declarations type-check on their own.
 */

export const REPO = resolve(__dirname, '../../..');
export const SDK = join(REPO, 'libs/subscriber-sdk');
const SRC = join(SDK, 'src');
const WORKSPACE_PACKAGE = /^@headspace\/([a-z-]+)$/;
const EXPANSION_FILE = join(SRC, '__published-event-types__.ts');
const EXPANDED_MODULE = 'headspace-event';

export interface BuildResult {
  packageDir: string;
  /** What `dist/` holds, relative to it. */
  files: string[];
  eventTypes: number;
}

/** Writes the package into `packageDir` (default `dist/packages/subscriber-sdk` of the repo), replacing what was there. */
export function buildSubscriberSdk(packageDir = join(REPO, 'dist/packages/subscriber-sdk')): BuildResult {
  const outDir = join(packageDir, 'dist');
  const options = compilerOptions(outDir);
  const roots = readdirSync(SRC)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts') && !f.endsWith('.d.ts'))
    .map((f) => join(SRC, f));

  // Pass 1: the event types; pass 2: an alias per type, whose expansion the checker prints.
  const first = programWith(roots, options, `import type { HeadspaceEventType } from './${EXPANDED_MODULE}';\nexport type __All = HeadspaceEventType;\n`);
  const types = eventTypesOf(first);
  const aliases = types.map((type, i) => `export type __E${i} = HeadspaceEventData<${JSON.stringify(type)}>;`).join('\n');
  const program = programWith(roots, options, `import type { HeadspaceEventData } from './${EXPANDED_MODULE}';\n${aliases}\n`, first);
  failOn(ts.getPreEmitDiagnostics(program).filter((d) => d.file?.fileName.startsWith(SRC)), 'the SDK does not type-check');

  rmSync(packageDir, { recursive: true, force: true });
  const written: string[] = [];
  const write = (path: string, text: string) => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    written.push(path);
  };

  const vendor = new Vendor(program);
  for (const root of roots) vendor.collect(program.getSourceFile(root)!);
  for (const file of vendor.files()) {
    emit(program, file, (name, text) => !name.endsWith('.d.ts') && write(join(outDir, vendor.outputOf(file.fileName)) + extensionOf(name), text));
  }
  for (const pkg of vendor.packages()) write(join(outDir, 'vendor', `${pkg}.js`), vendor.barrel(pkg, options));

  for (const root of roots) {
    const base = join(outDir, relative(SRC, root).replace(/\.ts$/, ''));
    emit(
      program,
      program.getSourceFile(root)!,
      (name, text) => {
        if (name.endsWith('.d.ts') && root === join(SRC, `${EXPANDED_MODULE}.ts`)) return write(`${base}.d.ts`, expandedDeclarations(program, types));
        write(base + extensionOf(name), text);
      },
      { before: [vendor.rewriter(root)] },
    );
  }

  checkOutput(outDir, written);
  for (const file of ['package.json', 'README.md']) writeFileSync(join(packageDir, file), readFileSync(join(SDK, file)));
  return { packageDir, files: written.map((f) => relative(outDir, f).split(sep).join('/')).sort(), eventTypes: types.length };
}

function compilerOptions(outDir: string): ts.CompilerOptions {
  const configPath = join(REPO, 'tsconfig.json');
  const parsed = ts.parseJsonConfigFileContent(ts.readConfigFile(configPath, ts.sys.readFile).config, ts.sys, REPO);
  return {
    ...parsed.options,
    // Node 20 runs ES2022. NodeNext emits CommonJS here (the SDK's package.json says so), which loads under require() and import alike.
    target: ts.ScriptTarget.ES2022,
    noEmit: false,
    declaration: true,
    sourceMap: false,
    emitDecoratorMetadata: false,
    experimentalDecorators: false,
    outDir,
    rootDir: undefined,
  };
}

function programWith(roots: string[], options: ts.CompilerOptions, expansion: string, old?: ts.Program): ts.Program {
  const host = ts.createCompilerHost(options, true);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (name, language, ...rest) =>
    resolve(name) === EXPANSION_FILE ? ts.createSourceFile(name, expansion, language, true) : getSourceFile.call(host, name, language, ...rest);
  host.fileExists = (name) => resolve(name) === EXPANSION_FILE || fileExists.call(host, name);
  host.readFile = (name) => (resolve(name) === EXPANSION_FILE ? expansion : readFile.call(host, name));
  return ts.createProgram({ rootNames: [...roots, EXPANSION_FILE], options, host, oldProgram: old });
}

function aliasesOf(program: ts.Program): ts.TypeAliasDeclaration[] {
  return program.getSourceFile(EXPANSION_FILE)!.statements.filter(ts.isTypeAliasDeclaration);
}

function eventTypesOf(program: ts.Program): string[] {
  const checker = program.getTypeChecker();
  const all = checker.getTypeAtLocation(aliasesOf(program)[0]!.name);
  const members = all.isUnion() ? all.types : [all];
  const types = members.map((t) => {
    if (!t.isStringLiteral()) throw new Error(`HeadspaceEventType has a member that is not a string literal: ${checker.typeToString(t)}`);
    return t.value;
  });
  if (types.length === 0) throw new Error('HeadspaceEventType is empty');
  return types.sort();
}

/** The published `headspace-event.d.ts`: the same names as the source, with every payload written out. */
function expandedDeclarations(program: ts.Program, types: string[]): string {
  const checker = program.getTypeChecker();
  const expansion = program.getSourceFile(EXPANSION_FILE)!;
  const printer = ts.createPrinter({ newLine: ts.NewLineKind.LineFeed });
  const flags = ts.NodeBuilderFlags.NoTruncation | ts.NodeBuilderFlags.InTypeAlias | ts.NodeBuilderFlags.MultilineObjectLiterals;
  const entries = aliasesOf(program).map((alias, i) => {
    const node = checker.typeToTypeNode(checker.getTypeAtLocation(alias.name), alias, flags);
    if (!node) throw new Error(`cannot write out the data type of ${types[i]}`);
    const text = printer.printNode(ts.EmitHint.Unspecified, node, expansion).replace(/\n/g, '\n  ');
    return `  ${JSON.stringify(types[i])}: ${text};`;
  });
  return [
    '// Written by libs/subscriber-sdk/scripts/build-package.ts: each event payload is the output type of its zod contract (libs/contracts).',
    cloudEventDeclaration(program),
    '/** Every Headspace event type and its payload. */',
    'interface HeadspaceEventDataMap {',
    ...entries,
    '}',
    '/** `<category>.<name>` of every Headspace event, e.g. `task.claimed`. */',
    'export type HeadspaceEventType = keyof HeadspaceEventDataMap;',
    '/** The payload of one event type, as its zod contract outputs it. */',
    'export type HeadspaceEventData<T extends HeadspaceEventType> = HeadspaceEventDataMap[T];',
    '/** The CloudEvent of one event type (`type` is `headspace.<category>.<name>`). */',
    "export type HeadspaceEventOf<T extends HeadspaceEventType> = Omit<CloudEvent<HeadspaceEventData<T>>, 'type'> & { type: `headspace.${T}` };",
    '/** Any Headspace event as a subscriber receives it, discriminated by `type`. */',
    'export type HeadspaceEvent = { [T in HeadspaceEventType]: HeadspaceEventOf<T> }[HeadspaceEventType];',
    'export {};',
    '',
  ].join('\n');
}

/** `CloudEvent`, copied from the declaration the SDK's source imports (libs/messaging). */
function cloudEventDeclaration(program: ts.Program): string {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(join(SRC, `${EXPANDED_MODULE}.ts`))!;
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement)) continue;
    for (const element of (statement.importClause?.namedBindings as ts.NamedImports | undefined)?.elements ?? []) {
      if (element.name.text !== 'CloudEvent') continue;
      const declaration = checker.getAliasedSymbol(checker.getSymbolAtLocation(element.name)!).declarations?.find(ts.isInterfaceDeclaration);
      if (declaration) return declaration.getFullText().trim();
    }
  }
  throw new Error(`${EXPANDED_MODULE}.ts no longer imports the CloudEvent interface`);
}

/**
 * The runtime values the SDK imports from workspace packages: which files declare them, where
 * those files go under `dist/vendor/`, and a barrel per package the SDK's imports are pointed at.
 */
class Vendor {
  private readonly checker: ts.TypeChecker;
  private readonly used = new Map<string, Map<string, string>>(); // package → name → declaring file
  private readonly vendored = new Map<string, ts.SourceFile>();

  constructor(private readonly program: ts.Program) {
    this.checker = program.getTypeChecker();
  }

  collect(file: ts.SourceFile): void {
    for (const statement of file.statements) {
      if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && WORKSPACE_PACKAGE.test(moduleText(statement.moduleSpecifier)) && !statement.isTypeOnly) {
        throw new Error(`${relative(REPO, file.fileName)}: re-exports from ${moduleText(statement.moduleSpecifier)}; import the values and export them instead`);
      }
      if (!ts.isImportDeclaration(statement)) continue;
      const pkg = WORKSPACE_PACKAGE.exec(moduleText(statement.moduleSpecifier))?.[1];
      const clause = statement.importClause;
      if (!pkg || !clause || clause.isTypeOnly) continue;
      if (clause.name || !clause.namedBindings || !ts.isNamedImports(clause.namedBindings)) {
        throw new Error(`${relative(REPO, file.fileName)}: only named imports from @headspace/${pkg} can be vendored`);
      }
      for (const element of clause.namedBindings.elements) {
        if (element.isTypeOnly) continue;
        const symbol = this.checker.getAliasedSymbol(this.checker.getSymbolAtLocation(element.name)!);
        if (!(symbol.flags & ts.SymbolFlags.Value)) continue;
        const declaring = symbol.declarations?.[0]?.getSourceFile();
        if (!declaring || declaring.isDeclarationFile) throw new Error(`@headspace/${pkg}'s ${symbol.name} has no source to vendor`);
        const names = this.used.get(pkg) ?? new Map<string, string>();
        names.set((element.propertyName ?? element.name).text, declaring.fileName);
        this.used.set(pkg, names);
        this.bring(declaring);
      }
    }
  }

  private bring(file: ts.SourceFile): void {
    if (this.vendored.has(file.fileName)) return;
    this.vendored.set(file.fileName, file);
    for (const statement of file.statements) {
      const specifier = (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) && statement.moduleSpecifier ? moduleText(statement.moduleSpecifier) : undefined;
      if (!specifier || (ts.isImportDeclaration(statement) && statement.importClause?.isTypeOnly)) continue;
      if (isBuiltin(specifier)) continue;
      if (!specifier.startsWith('.')) {
        throw new Error(`${relative(REPO, file.fileName)} (vendored into the SDK) imports ${specifier}: the SDK would need it at runtime`);
      }
      const resolved = ts.resolveModuleName(specifier, file.fileName, this.program.getCompilerOptions(), ts.sys).resolvedModule;
      const next = resolved && this.program.getSourceFile(resolved.resolvedFileName);
      if (!next) throw new Error(`${relative(REPO, file.fileName)}: cannot resolve ${specifier}`);
      this.bring(next);
    }
  }

  files(): ts.SourceFile[] {
    return [...this.vendored.values()];
  }

  packages(): string[] {
    return [...this.used.keys()];
  }

  /** `vendor/<package>/<path inside its src>`, without extension. */
  outputOf(fileName: string): string {
    const match = /\/libs\/([a-z-]+)\/src\/(.+)\.ts$/.exec(fileName.split(sep).join('/'));
    if (!match) throw new Error(`${fileName} is not a workspace library source`);
    return posix.join('vendor', match[1]!, match[2]!);
  }

  /** `dist/vendor/<package>.js`: the names the SDK imports, re-exported from the vendored files. */
  barrel(pkg: string, options: ts.CompilerOptions): string {
    const byFile = new Map<string, string[]>();
    for (const [name, file] of this.used.get(pkg)!) byFile.set(file, [...(byFile.get(file) ?? []), name]);
    const source = [...byFile].map(([file, names]) => `export { ${names.sort().join(', ')} } from './${posix.relative('vendor', this.outputOf(file))}';`).join('\n');
    return ts.transpileModule(source, { compilerOptions: { ...options, declaration: false } }).outputText;
  }

  /** Points the SDK file's workspace imports at the barrels. */
  rewriter(root: string): ts.TransformerFactory<ts.SourceFile> {
    const toBarrel = (pkg: string) => {
      const path = posix.relative(posix.dirname(relative(SRC, root).split(sep).join('/')), `vendor/${pkg}`);
      return path.startsWith('.') ? path : `./${path}`;
    };
    return (context) => (file) =>
      ts.visitEachChild(
        file,
        (node) => {
          if (!ts.isImportDeclaration(node)) return node;
          const pkg = WORKSPACE_PACKAGE.exec(moduleText(node.moduleSpecifier))?.[1];
          if (!pkg || !this.used.has(pkg)) return node;
          return context.factory.updateImportDeclaration(node, node.modifiers, node.importClause, context.factory.createStringLiteral(toBarrel(pkg)), node.attributes);
        },
        context,
      );
  }
}

function moduleText(node: ts.Expression): string {
  return ts.isStringLiteral(node) ? node.text : '';
}

function extensionOf(name: string): string {
  return name.endsWith('.d.ts') ? '.d.ts' : (/\.[a-z]+$/.exec(name)?.[0] ?? '');
}

function emit(program: ts.Program, file: ts.SourceFile, write: (name: string, text: string) => void, transformers?: ts.CustomTransformers): void {
  const result = program.emit(file, (name, text) => write(name, text), undefined, false, transformers);
  failOn(result.diagnostics, `cannot emit ${relative(REPO, file.fileName)}`);
}

/** What makes the package installable alone, checked on what was written. */
function checkOutput(outDir: string, files: string[]): void {
  const problems: string[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const at = relative(outDir, file);
    if (text.includes('@headspace/')) problems.push(`${at} names a @headspace/ package`);
    for (const [, specifier] of text.matchAll(/require\("([^"]+)"\)/g)) {
      if (!specifier!.startsWith('.') && !isBuiltin(specifier!)) problems.push(`${at} requires ${specifier}`);
    }
    for (const [, specifier] of text.matchAll(/(?:from|import\()\s*["']([^"']+)["']/g)) {
      if (file.endsWith('.d.ts') && !specifier!.startsWith('.')) problems.push(`${at} imports types from ${specifier}`);
    }
  }
  if (problems.length) throw new Error(`the built SDK is not self-contained:\n${problems.join('\n')}`);
  // The declarations alone, as a consumer without the repo compiles them (DOM lib for fetch, no @types/node).
  const declarations = files.filter((f) => f.endsWith('.d.ts'));
  const standalone = ts.createProgram(declarations, { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'], types: [], skipLibCheck: false });
  failOn(ts.getPreEmitDiagnostics(standalone), 'the published declarations do not type-check on their own');
}

function failOn(diagnostics: readonly ts.Diagnostic[], what: string): void {
  if (diagnostics.length === 0) return;
  const text = ts.formatDiagnostics(diagnostics.slice(0, 20), { getCanonicalFileName: (f) => f, getCurrentDirectory: () => REPO, getNewLine: () => '\n' });
  throw new Error(`${what}:\n${text}`);
}

if (require.main === module) {
  const started = performance.now();
  const result = buildSubscriberSdk(process.argv[2] ? resolve(process.argv[2]) : undefined);
  console.log(`${relative(process.cwd(), result.packageDir) || '.'}: ${result.files.length} files, ${result.eventTypes} event types (${Math.round(performance.now() - started)} ms)`);
}
