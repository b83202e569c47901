// Ground truth for bench/codegraph_accuracy.py --ts: the TypeScript compiler's own reading of a
// repository (its Program and TypeChecker), printed in the format of JavaTruth.java:
//
//   D  path  start  end  kind  name          classes, interfaces, enums, type aliases, functions
//                                            (declarations, and const/let bound to a function or
//                                            arrow), methods and constructors of classes
//   C  path  line  nameLine  name  tpath  tstart  tend
//                                            calls and `new` whose callee the checker resolves
//                                            (through imports) to a declaration in those files
//   X  path  line  nameLine  name            calls it resolves outside them (lib, node_modules)
//
// The .ts/.tsx file paths come on stdin; the typescript package's path is argv[2].
"use strict";
const ts = require(process.argv[2]);
const path = require("path");

const files = require("fs").readFileSync(0, "utf8").split("\n").filter((l) => l.trim());
const root = process.cwd();
const inRepo = new Set(files.map((f) => path.resolve(root, f)));
const program = ts.createProgram(
  files.map((f) => path.resolve(root, f)),
  { allowJs: false, noEmit: true, target: ts.ScriptTarget.ESNext, module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler, jsx: ts.JsxEmit.Preserve, skipLibCheck: true },
);
const checker = program.getTypeChecker();
const out = [];
const rel = (sf) => path.relative(root, sf.fileName);
const line = (sf, pos) => sf.getLineAndCharacterOfPosition(pos).line + 1;
const span = (node) => {
  const sf = node.getSourceFile();
  return [line(sf, node.getStart(sf)), line(sf, node.getEnd())];
};

function isFunctionInit(node) {
  return node && (ts.isArrowFunction(node) || ts.isFunctionExpression(node));
}

function defOf(node) {
  if (ts.isClassDeclaration(node) && node.name) return ["class", node.name.text];
  if (ts.isInterfaceDeclaration(node)) return ["interface", node.name.text];
  if (ts.isEnumDeclaration(node)) return ["enum", node.name.text];
  if (ts.isTypeAliasDeclaration(node)) return ["type", node.name.text];
  if (ts.isFunctionDeclaration(node) && node.name && node.body) return ["function", node.name.text];
  if (ts.isMethodDeclaration(node) && node.body && ts.isClassLike(node.parent)
      && (ts.isIdentifier(node.name) || ts.isPrivateIdentifier(node.name))) {
    return ["method", node.name.text];
  }
  if (ts.isConstructorDeclaration(node) && node.body && node.parent.name) {
    return ["constructor", node.parent.name.text];
  }
  if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && isFunctionInit(node.initializer)) {
    return ["function", node.name.text];
  }
  return null;
}

function target(callee) {
  let symbol = checker.getSymbolAtLocation(callee);
  if (!symbol) return null;
  if (symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  const decl = (symbol.declarations || []).find((d) => defOf(d) || ts.isClassDeclaration(d))
    || (symbol.declarations || [])[0];
  return decl || null;
}

function visit(sf, node) {
  const def = defOf(node);
  if (def) {
    const [s, e] = span(node);
    out.push(["D", rel(sf), s, e, def[0], def[1]].join("\t"));
  }
  if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
    let callee = node.expression;
    while (ts.isParenthesizedExpression(callee) || ts.isNonNullExpression(callee)) callee = callee.expression;
    const nameNode = ts.isPropertyAccessExpression(callee) ? callee.name
      : ts.isIdentifier(callee) ? callee : null;
    if (nameNode && callee.kind !== ts.SyntaxKind.SuperKeyword) {
      const where = [rel(sf), line(sf, node.getStart(sf)), line(sf, nameNode.getStart(sf)), nameNode.text];
      const decl = target(nameNode);
      if (decl) {
        const tsf = decl.getSourceFile();
        if (inRepo.has(path.resolve(tsf.fileName)) && !tsf.isDeclarationFile) {
          const [s, e] = span(decl);
          out.push(["C", ...where, rel(tsf), s, e].join("\t"));
        } else if (!inRepo.has(path.resolve(tsf.fileName))) {
          out.push(["X", ...where].join("\t"));
        }
      }
    }
  }
  ts.forEachChild(node, (child) => visit(sf, child));
}

for (const sf of program.getSourceFiles()) {
  if (inRepo.has(path.resolve(sf.fileName))) visit(sf, sf);
}
const errors = ts.getPreEmitDiagnostics(program).length;
out.push(["E", errors].join("\t"));
process.stdout.write(out.join("\n") + "\n");
