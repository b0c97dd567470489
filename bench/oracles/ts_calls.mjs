// The TypeScript type checker as an oracle of call edges, for `graph-eval`.
//
//   node ts_calls.mjs <typescript package dir> <repository root>   (file list on stdin)
//
// stdin: repository-relative paths, one a line (the .ts/.tsx/.js/.jsx/.mjs/.cjs/.mts/.cts
// files wit indexes). stdout: one JSON object per call site of those files:
//
//   {"file", "line", "byte", "callee", "receiver", "target"}
//
// - line: 0-based line of the call expression's start (`node.getStart()`), as wit counts it;
//   byte: its UTF-8 byte offset in the file (graph-eval uses it to find the calling
//   definition of a site wit de-duplicated).
// - callee: the called name (`f` in `f()`, `m` in `a.b.m()`); only calls whose callee is an
//   identifier or a property access (optionally `!`-wrapped) are listed, as wit records
//   only those; `new` expressions, `super(…)`, `import(…)`, `a[k]()` are left out.
// - receiver: null for a plain call, else the receiver as wit's analyzer spells it (a name
//   or chain of names without whitespace, `this`, `super`, `new:Name`, or "" for any other
//   expression), so that a site wit de-duplicated can be matched to the one it kept.
// - target: null when the checker has no symbol or no declaration for the name; else
//   {"file", "name", "line", "name_line", "external", "function", "kind"}: the declaration
//   (aliases followed), its qualified name in its file (named containers joined with '.',
//   `Repo.find`, `helper`), the 0-based lines of its start and of its name, whether it lies
//   outside the repository (lib.d.ts, a dependency, any .d.ts), whether it is a function
//   (function/method declaration, arrow function or function expression bound to a name or
//   property), and its syntax kind (`MethodSignature`, `Parameter`, … for the others).
//
// Configuration. Files are grouped by their nearest `tsconfig.json` (or `jsconfig.json`)
// walking up to the root, and each group gets its own Program with that configuration's
// compilerOptions (`extends` followed by TypeScript itself; an `extends` naming a package
// that is not installed is reported on stderr and the rest of the file still applies).
// Files with no configuration get defaults (ESNext modules, bundler resolution). Every
// Program is forced to allowJs, checkJs off, noEmit, skipLibCheck, `types: []`; the
// group's files are the roots whatever the configuration's `include` says. Workspace
// packages of a monorepo are made importable by name as a package manager would: a
// symlink `node_modules/<name>` at the root for every `package.json` with a `name` (the
// checkout is graph-eval's scratch copy; declarations are reported at their real path).
// Third-party dependencies are not installed: calls into them have no declaration
// (target null) unless a .d.ts is in the repository.

import { createRequire } from "node:module";
import * as fs from "node:fs";
import * as path from "node:path";

const [tsDir, rootArg] = process.argv.slice(2);
if (!tsDir || !rootArg) {
  console.error("usage: node ts_calls.mjs <typescript package dir> <repository root> < files");
  process.exit(2);
}
const ts = createRequire(path.join(tsDir, "package.json"))(tsDir);
const root = fs.realpathSync(rootArg);

const files = fs
  .readFileSync(0, "utf8")
  .split("\n")
  .map((l) => l.trim())
  .filter((l) => l.length > 0);

linkWorkspacePackages();

// Group the files by their nearest configuration.
const groups = new Map();
for (const file of files) {
  const config = nearestConfig(path.dirname(file));
  const key = config ?? "";
  if (!groups.has(key)) groups.set(key, []);
  groups.get(key).push(file);
}

let sites = 0;
const out = [];
const flush = () => {
  if (out.length > 0) {
    fs.writeSync(1, out.join(""));
    out.length = 0;
  }
};
for (const [config, group] of groups) {
  const started = Date.now();
  const options = compilerOptions(config || null);
  const program = ts.createProgram({
    rootNames: group.map((f) => path.join(root, f)),
    options,
  });
  const checker = program.getTypeChecker();
  for (const file of group) {
    const sf = program.getSourceFile(path.join(root, file));
    if (!sf) {
      console.error(`ts_calls: ${file}: not in the program`);
      continue;
    }
    visitFile(sf, file, checker);
    if (out.length > 4096) flush();
  }
  flush();
  console.error(
    `ts_calls: ${group.length} files under ${config || "(no tsconfig)"} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
}
flush();
console.error(`ts_calls: ${sites} call sites`);

/** The nearest tsconfig.json / jsconfig.json from `dir` (repo-relative) up to the root. */
function nearestConfig(dir) {
  for (let d = dir; ; d = path.dirname(d)) {
    for (const name of ["tsconfig.json", "jsconfig.json"]) {
      const candidate = path.join(root, d, name);
      if (fs.existsSync(candidate)) return path.relative(root, candidate);
    }
    if (d === "." || d === "" || d === "/") return null;
  }
}

/** The options a group's Program gets (see the header). */
function compilerOptions(config) {
  let options = {};
  if (config) {
    const host = {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) =>
        console.error(`ts_calls: ${config}: ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`),
    };
    const parsed = ts.getParsedCommandLineOfConfigFile(path.join(root, config), {}, host);
    if (parsed) {
      for (const e of parsed.errors) {
        // Missing inputs (TS18003) are expected: the roots are given explicitly.
        if (e.code !== 18003) {
          console.error(`ts_calls: ${config}: ${ts.flattenDiagnosticMessageText(e.messageText, " ")}`);
        }
      }
      options = parsed.options;
    }
  }
  if (options.module === undefined && options.moduleResolution === undefined) {
    // No configuration (or its `extends` could not be read): modern defaults that accept
    // extension-less ESM imports, `.js` specifiers of `.ts` files, `exports` maps, and
    // CommonJS `require` in JS files.
    options.module = ts.ModuleKind.ESNext;
    options.moduleResolution = ts.ModuleResolutionKind.Bundler;
  }
  options.target ??= ts.ScriptTarget.ES2022;
  options.jsx ??= ts.JsxEmit.Preserve;
  options.esModuleInterop ??= true;
  options.resolveJsonModule ??= true;
  options.allowJs = true;
  options.checkJs = false;
  options.noEmit = true;
  options.skipLibCheck = true;
  options.types = [];
  // Options that make the compiler print on stdout, which carries the answers.
  options.traceResolution = false;
  options.listFiles = false;
  options.explainFiles = false;
  options.diagnostics = false;
  options.extendedDiagnostics = false;
  delete options.generateTrace;
  // No composite / project-reference constraints: this is a read-only analysis.
  delete options.composite;
  delete options.incremental;
  delete options.tsBuildInfoFile;
  delete options.declaration;
  delete options.emitDeclarationOnly;
  return options;
}

/** `node_modules/<name>` → the package's directory, for every named workspace package. */
function linkWorkspacePackages() {
  const seen = new Map();
  const walk = (dir) => {
    let entries;
    try {
      entries = fs.readdirSync(path.join(root, dir), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.isDirectory()) {
        if (e.name === "node_modules" || e.name.startsWith(".git")) continue;
        walk(path.join(dir, e.name));
      } else if (e.name === "package.json") {
        try {
          const name = JSON.parse(fs.readFileSync(path.join(root, dir, e.name), "utf8")).name;
          if (typeof name === "string" && name.length > 0) {
            seen.set(name, seen.has(name) ? null : dir);
          }
        } catch {
          // Not JSON (a template): not a package.
        }
      }
    }
  };
  walk("");
  let linked = 0;
  for (const [name, dir] of seen) {
    // A name two packages share is ambiguous (fixtures): neither is linked.
    if (dir === null || dir === "") continue;
    const link = path.join(root, "node_modules", name);
    if (fs.existsSync(link)) continue;
    fs.mkdirSync(path.dirname(link), { recursive: true });
    fs.symlinkSync(path.join(root, dir), link, "dir");
    linked++;
  }
  if (linked > 0) console.error(`ts_calls: ${linked} workspace packages linked under node_modules`);
}

/** Appends the call sites of one file to `out`. */
function visitFile(sf, file, checker) {
  const text = sf.text;
  const starts = sf.getLineStarts();
  // UTF-8 byte offset of each line start.
  const byteStarts = new Array(starts.length);
  let bytes = 0;
  for (let i = 0; i < starts.length; i++) {
    byteStarts[i] = bytes;
    const end = i + 1 < starts.length ? starts[i + 1] : text.length;
    bytes += Buffer.byteLength(text.slice(starts[i], end), "utf8");
  }
  const visit = (node) => {
    if (ts.isCallExpression(node)) {
      const site = callSite(node, sf, checker);
      if (site) {
        const pos = node.getStart(sf);
        const { line, character } = sf.getLineAndCharacterOfPosition(pos);
        const byte = byteStarts[line] + Buffer.byteLength(text.slice(starts[line], starts[line] + character), "utf8");
        out.push(JSON.stringify({ file, line, byte, ...site }) + "\n");
        sites++;
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}

/** The callee, receiver and target of a call, or null for a callee shape wit does not record. */
function callSite(call, sf, checker) {
  let callee = call.expression;
  if (ts.isNonNullExpression(callee)) callee = callee.expression;
  let nameNode;
  let receiver = null;
  if (ts.isIdentifier(callee)) {
    nameNode = callee;
  } else if (ts.isPropertyAccessExpression(callee)) {
    nameNode = callee.name;
    receiver = receiverText(callee.expression, sf);
  } else {
    return null;
  }
  return { callee: nameNode.text, receiver, target: target(nameNode, checker) };
}

/** The receiver as wit's analyzer spells it (analyzers/src/engine/extract.rs, `Receiver`). */
function receiverText(node, sf) {
  if (ts.isNewExpression(node)) {
    return ts.isIdentifier(node.expression) ? `new:${node.expression.text}` : "";
  }
  const plainKind =
    ts.isIdentifier(node) ||
    ts.isPrivateIdentifier(node) ||
    node.kind === ts.SyntaxKind.ThisKeyword ||
    node.kind === ts.SyntaxKind.SuperKeyword ||
    ts.isPropertyAccessExpression(node);
  const text = node.getText(sf);
  if (!plainKind || Buffer.byteLength(text, "utf8") > 256) return "";
  // Names, dots, `#`, `:` and whitespace only (a `?.`, `!`, call or index makes it "other").
  if (!/^[A-Za-z0-9_$.#:\s\u{80}-\u{10FFFF}]*$/u.test(text)) return "";
  return text.replace(/\s+/g, "");
}

/** What the checker says the called name is (see the header), or null. */
function target(nameNode, checker) {
  let symbol = checker.getSymbolAtLocation(nameNode);
  for (let hops = 0; symbol && hops < 8; hops++) {
    if (symbol.flags & ts.SymbolFlags.Alias) {
      symbol = checker.getAliasedSymbol(symbol);
      continue;
    }
    const decl = chooseDeclaration(symbol.declarations ?? []);
    if (!decl) return null;
    // Names that only stand for another name (`{ f }`, `{ f: g }`, `const f = g`,
    // `const join = path.join`, `static create = createEnum`, `export default g`,
    // `module.exports = require('./m')`): the definition is the other name's; null when
    // that name cannot be resolved (a dependency that is not installed).
    const next = forwarded(decl, checker);
    if (next === null) return null;
    if (next && next !== symbol) {
      symbol = next;
      continue;
    }
    return describe(decl);
  }
  return null;
}

/**
 * The symbol a declaration merely forwards to, if it is one of the aliasing shapes
 * (undefined when it is not; null when it is but the other name has no symbol).
 */
function forwarded(decl, checker) {
  if (ts.isShorthandPropertyAssignment(decl)) {
    return checker.getShorthandAssignmentValueSymbol(decl) ?? null;
  }
  if (
    (ts.isPropertyAccessExpression(decl) || ts.isElementAccessExpression(decl)) &&
    ts.isBinaryExpression(decl.parent) &&
    decl.parent.left === decl
  ) {
    decl = decl.parent;
  }
  let init =
    ts.isPropertyAssignment(decl) || ts.isVariableDeclaration(decl) || ts.isPropertyDeclaration(decl)
      ? decl.initializer
      : ts.isExportAssignment(decl)
        ? decl.expression
        : ts.isBinaryExpression(decl) && decl.operatorToken.kind === ts.SyntaxKind.EqualsToken
          ? decl.right
          : undefined;
  if (!init) return undefined;
  init = skipWrappers(init);
  // `exports = module.exports = f`: the value is the innermost right-hand side.
  while (ts.isBinaryExpression(init) && init.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
    init = skipWrappers(init.right);
  }
  if (ts.isIdentifier(init)) {
    return checker.getSymbolAtLocation(init) ?? null;
  }
  // `const join = path.join`: the property's own declaration.
  if (ts.isPropertyAccessExpression(init) && isNameChain(init)) {
    return checker.getSymbolAtLocation(init.name) ?? null;
  }
  // `x = require('m')`: the module's export (`module.exports = …`, or the module itself).
  if (
    ts.isCallExpression(init) &&
    ts.isIdentifier(init.expression) &&
    init.expression.text === "require" &&
    init.arguments.length === 1 &&
    ts.isStringLiteralLike(init.arguments[0])
  ) {
    const module = checker.getSymbolAtLocation(init.arguments[0]);
    return module ? checker.resolveExternalModuleSymbol(module) : null;
  }
  return undefined;
}

/** Whether an expression is a plain chain of names (`a`, `a.b.c`, `this.a`). */
function isNameChain(e) {
  while (ts.isPropertyAccessExpression(e)) e = e.expression;
  return ts.isIdentifier(e) || e.kind === ts.SyntaxKind.ThisKeyword;
}

/** Parentheses, `as`, `satisfies` and `!` around an expression, removed. */
function skipWrappers(e) {
  while (
    ts.isParenthesizedExpression(e) ||
    ts.isAsExpression(e) ||
    ts.isSatisfiesExpression(e) ||
    ts.isNonNullExpression(e) ||
    ts.isTypeAssertionExpression(e)
  ) {
    e = e.expression;
  }
  return e;
}

/** Among a symbol's declarations: a function with a body, else any function, else the first. */
function chooseDeclaration(decls) {
  return (
    decls.find((d) => isFunction(d) && hasBody(d)) ?? decls.find((d) => isFunction(d)) ?? decls[0]
  );
}

function hasBody(d) {
  const f = functionNode(d);
  return !!(f && f.body);
}

function isFunction(d) {
  return functionNode(d) !== undefined;
}

/** The function node of a declaration that is a function, or undefined. */
function functionNode(d) {
  if (ts.isFunctionDeclaration(d) || ts.isMethodDeclaration(d) || ts.isFunctionExpression(d) || ts.isArrowFunction(d)) {
    return d;
  }
  let value;
  if (ts.isVariableDeclaration(d) || ts.isPropertyAssignment(d) || ts.isPropertyDeclaration(d)) {
    value = d.initializer;
  } else if (ts.isBinaryExpression(d)) {
    value = d.right;
  } else if (
    (ts.isPropertyAccessExpression(d) || ts.isElementAccessExpression(d)) &&
    ts.isBinaryExpression(d.parent) &&
    d.parent.left === d &&
    d.parent.operatorToken.kind === ts.SyntaxKind.EqualsToken
  ) {
    // JS expando assignments: `res.send = function send() {}`, `exports.f = () => …`.
    value = d.parent.right;
  }
  if (!value) return undefined;
  value = skipWrappers(value);
  return ts.isArrowFunction(value) || ts.isFunctionExpression(value) ? value : undefined;
}

/** The target object of one declaration. */
function describe(decl) {
  const sf = decl.getSourceFile();
  let real = sf.fileName;
  try {
    real = fs.realpathSync(sf.fileName);
  } catch {
    // lib files live in the typescript package; the name is enough.
  }
  const rel = path.relative(root, real);
  const outside = rel.startsWith("..") || path.isAbsolute(rel) || rel.split(path.sep).includes("node_modules");
  const external = outside || sf.isDeclarationFile;
  const start = decl.getStart(sf);
  const name = declName(decl);
  const nameStart = name ? name.getStart(sf) : start;
  return {
    // Outside files by a short name (`lib.es5.d.ts`, `node_modules/x/index.d.ts`).
    file: outside
      ? real.includes("node_modules")
        ? real.slice(real.lastIndexOf("node_modules"))
        : path.basename(real)
      : rel,
    name: qualifiedName(decl, sf),
    line: sf.getLineAndCharacterOfPosition(start).line,
    name_line: sf.getLineAndCharacterOfPosition(nameStart).line,
    external,
    function: isFunction(decl),
    kind: ts.SyntaxKind[decl.kind],
  };
}

/** The name node of a declaration (for JS expando assignments, the assigned property). */
function declName(d) {
  if (ts.isBinaryExpression(d)) d = d.left;
  if (ts.isPropertyAccessExpression(d)) return d.name;
  return d.name && (ts.isIdentifier(d.name) || ts.isPrivateIdentifier(d.name) || ts.isStringLiteral(d.name)) ? d.name : undefined;
}

/** Text of a declaration's own name, or undefined. */
function nameText(d) {
  const n = declName(d);
  return n ? n.text : undefined;
}

/**
 * The declaration's name qualified by the named declarations around it, joined with '.':
 * `Repo.find`, `api.get`, `outer.inner`; for `res.send = function …` the assigned path
 * without `exports.` / `module.exports.` (`res.send`).
 */
function qualifiedName(decl, sf) {
  const parts = [];
  if (ts.isBinaryExpression(decl) || ts.isPropertyAccessExpression(decl)) {
    const left = ts.isBinaryExpression(decl) ? decl.left : decl;
    const text = left.getText(sf).replace(/\s+/g, "");
    return text.replace(/^module\.exports\./, "").replace(/^exports\./, "").replace(/\.prototype\./, ".");
  }
  const own = nameText(decl);
  if (own !== undefined) parts.push(own);
  for (let n = decl.parent; n && !ts.isSourceFile(n); n = n.parent) {
    if (
      ts.isClassDeclaration(n) ||
      ts.isClassExpression(n) ||
      ts.isInterfaceDeclaration(n) ||
      ts.isFunctionDeclaration(n) ||
      ts.isMethodDeclaration(n) ||
      ts.isModuleDeclaration(n) ||
      ts.isVariableDeclaration(n) ||
      ts.isPropertyAssignment(n) ||
      ts.isPropertyDeclaration(n) ||
      ts.isTypeAliasDeclaration(n) ||
      (ts.isFunctionExpression(n) && n.name)
    ) {
      const t = nameText(n);
      if (t !== undefined && !(ts.isClassExpression(n) && ts.isVariableDeclaration(n.parent))) parts.push(t);
    } else if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
      // `module.exports = { f() {} }`: the module's own names; `x.y = { f() {} }`: `x.y.f`.
      const left = n.left.getText(sf).replace(/\s+/g, "");
      if (left !== "module.exports" && left !== "exports") parts.push(left);
    }
  }
  return parts.reverse().join(".");
}
