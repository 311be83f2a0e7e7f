/**
 * The house rule on size, enforced: no file under src/ is over 350 lines and no function in
 * one (declaration, method, constructor, accessor, arrow function, function expression) is
 * over 80 lines, counted from the line it starts on to the line it ends on. Reads the code
 * with the TypeScript compiler's parser, so strings and comments never look like functions.
 */
import { readFile } from "node:fs/promises";
import { relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers.js";
import { SRC, sourceFiles } from "./source-files.js";

const MAX_FILE_LINES = 350;
const MAX_FUNCTION_LINES = 80;

/**
 * Offenders being split right now by another helper (issue 10), each `file name` as the
 * offender list spells it, with why it is still here. Each must still offend (a test checks
 * it), so the list shrinks as the splits land.
 */
const EXCEPTIONS: Array<{ offender: string; reason: string }> = [];


interface Offender {
  /** `src/a/b.ts name`: what EXCEPTIONS name. */
  key: string;
  /** `src/a/b.ts:12 name 93 lines`: what a failure prints. */
  line: string;
}


type FunctionNode = ts.FunctionLikeDeclaration;

function isFunction(node: ts.Node): node is FunctionNode {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node) ||
    ts.isArrowFunction(node) ||
    ts.isFunctionExpression(node)
  );
}

/** The name a reader finds the function by: its own, the variable or property it is bound to, else `<anonymous>`. */
function ownName(node: FunctionNode, source: ts.SourceFile): string | undefined {
  if (ts.isConstructorDeclaration(node)) return "constructor";
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && parent.name) {
    return parent.name.getText(source);
  }
  return undefined;
}

/** Every function of `source` named by its enclosing functions and classes too: `runChild > <anonymous>`, `Session > close`. */
function functionsOf(source: ts.SourceFile): Array<{ name: string; start: number; lines: number }> {
  const out: Array<{ name: string; start: number; lines: number }> = [];
  const visit = (node: ts.Node, enclosing: string[]) => {
    let inside = enclosing;
    if (isFunction(node)) {
      const name = [...enclosing, ownName(node, source) ?? "<anonymous>"];
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
      out.push({ name: name.join(" > "), start, lines: end - start + 1 });
      inside = name;
    } else if (ts.isClassLike(node)) {
      inside = [...enclosing, node.name?.getText(source) ?? "<class>"];
    }
    ts.forEachChild(node, (child) => visit(child, inside));
  };
  visit(source, []);
  return out;
}

/** Files over the line limit and functions over theirs, in `text` (the file at `path`). */
function offendersIn(path: string, text: string): Offender[] {
  const out: Offender[] = [];
  const lines = text.endsWith("\n") ? text.split("\n").length - 1 : text.split("\n").length;
  if (lines > MAX_FILE_LINES) out.push({ key: `${path} (file)`, line: `${path} is ${lines} lines (limit ${MAX_FILE_LINES})` });
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  for (const fn of functionsOf(source)) {
    if (fn.lines <= MAX_FUNCTION_LINES) continue;
    out.push({ key: `${path} ${fn.name}`, line: `${path}:${fn.start} ${fn.name} ${fn.lines} lines (limit ${MAX_FUNCTION_LINES})` });
  }
  return out;
}

async function allOffenders(): Promise<Offender[]> {
  const out: Offender[] = [];
  for (const file of await sourceFiles(SRC)) out.push(...offendersIn(relative(repoRoot, file), await readFile(file, "utf8")));
  return out;
}

describe("size limits", () => {
  it("measures functions of every kind, nested ones by their enclosing names", () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join("\n");
    const text = [
      `export function long() {\n${body(MAX_FUNCTION_LINES - 1)}\n}`,
      `export function short() {\n${body(MAX_FUNCTION_LINES - 2)}\n}`,
      `const arrow = () => {\n${body(MAX_FUNCTION_LINES)}\n};`,
      `class K {\n  method() {\n${body(MAX_FUNCTION_LINES)}\n  }\n}`,
      `export function outer() {\n  return new Promise(function () {\n${body(MAX_FUNCTION_LINES)}\n  });\n}`,
    ].join("\n");
    const found = offendersIn("x.ts", text).map((offender) => offender.key);
    // Five functions of 80 lines and more make a file over the limit too.
    expect(found).toEqual(["x.ts (file)", "x.ts long", "x.ts arrow", "x.ts K > method", "x.ts outer", "x.ts outer > <anonymous>"]);
    expect(offendersIn("y.ts", "\n".repeat(MAX_FILE_LINES)).map((offender) => offender.key)).toEqual([]);
    expect(offendersIn("y.ts", "\n".repeat(MAX_FILE_LINES + 1)).map((offender) => offender.key)).toEqual(["y.ts (file)"]);
  });

  it(`no src file over ${MAX_FILE_LINES} lines, no function over ${MAX_FUNCTION_LINES}`, async () => {
    const offenders = await allOffenders();
    const excepted = new Set(EXCEPTIONS.map((exception) => exception.offender));
    expect(offenders.filter((offender) => !excepted.has(offender.key)).map((offender) => offender.line)).toEqual([]);
  });

  it("every exception still offends: a split one leaves the list", async () => {
    const keys = new Set((await allOffenders()).map((offender) => offender.key));
    expect(EXCEPTIONS.filter((exception) => !keys.has(exception.offender)).map((exception) => exception.offender)).toEqual([]);
  });
});
