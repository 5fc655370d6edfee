// The mutator: reads a TypeScript source with the compiler's own parser and lists its mutants, each one
// small textual change (an operator, a condition, a literal, a block, a method) with a location-
// independent key. Code that only runs with a planted violation switched on (`v.on('name')` and the
// flags set from it) is left alone: every mutant runs with all switches off, so changing it would be
// equivalent by construction.

import { createHash } from 'node:crypto';
import ts from 'typescript';

export interface Mutant {
  /** Stable across edits elsewhere in the file: file, operator, the enclosing statement's text, the change, and its rank among identical changes. */
  key: string;
  file: string;
  operator: string;
  /** 1-based line and column of the change. */
  line: number;
  column: number;
  start: number;
  end: number;
  original: string;
  replacement: string;
}

export interface MutateOptions {
  /** Names of planted violation switches (calls `x.on('<name>')` read as false). */
  switchNames?: ReadonlySet<string>;
  /** Property names whose value is a switch (`{ flag: v.on('name') }`), read as false wherever accessed. */
  switchFlags?: ReadonlySet<string>;
}

const EQUALITY: Partial<Record<ts.SyntaxKind, string>> = {
  [ts.SyntaxKind.EqualsEqualsEqualsToken]: '!==',
  [ts.SyntaxKind.ExclamationEqualsEqualsToken]: '===',
  [ts.SyntaxKind.EqualsEqualsToken]: '!=',
  [ts.SyntaxKind.ExclamationEqualsToken]: '==',
};
const BOUNDARY: Partial<Record<ts.SyntaxKind, string>> = {
  [ts.SyntaxKind.LessThanToken]: '<=',
  [ts.SyntaxKind.LessThanEqualsToken]: '<',
  [ts.SyntaxKind.GreaterThanToken]: '>=',
  [ts.SyntaxKind.GreaterThanEqualsToken]: '>',
};
const LOGICAL: Partial<Record<ts.SyntaxKind, string>> = {
  [ts.SyntaxKind.AmpersandAmpersandToken]: '||',
  [ts.SyntaxKind.BarBarToken]: '&&',
  [ts.SyntaxKind.QuestionQuestionToken]: '&&',
};
const ARITHMETIC: Partial<Record<ts.SyntaxKind, string>> = {
  [ts.SyntaxKind.PlusToken]: '-',
  [ts.SyntaxKind.MinusToken]: '+',
  [ts.SyntaxKind.AsteriskToken]: '/',
  [ts.SyntaxKind.SlashToken]: '*',
  [ts.SyntaxKind.PercentToken]: '*',
  [ts.SyntaxKind.PlusEqualsToken]: '-=',
  [ts.SyntaxKind.MinusEqualsToken]: '+=',
};
const METHODS: Record<string, string> = {
  some: 'every',
  every: 'some',
  startsWith: 'endsWith',
  endsWith: 'startsWith',
  toUpperCase: 'toLowerCase',
  toLowerCase: 'toUpperCase',
  min: 'max',
  max: 'min',
  floor: 'ceil',
  ceil: 'floor',
};
/** Calls whose receiver is returned instead (the call dropped): `xs.filter(f)` → `xs`. */
const DROPPABLE = new Set(['filter', 'sort', 'reverse', 'slice', 'trim']);

const hash = (s: string) => createHash('sha1').update(s).digest('hex');
const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

const isStringish = (n: ts.Node) =>
  ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n) || ts.isTemplateExpression(n);

/** A quick partial evaluation of a condition with every switch off: true, false or unknown. */
function switchValue(n: ts.Expression, o: Required<MutateOptions>): boolean | undefined {
  if (ts.isParenthesizedExpression(n)) return switchValue(n.expression, o);
  if (isSwitchCall(n, o) || isSwitchFlag(n, o)) return false;
  if (ts.isPrefixUnaryExpression(n) && n.operator === ts.SyntaxKind.ExclamationToken) {
    const v = switchValue(n.operand, o);
    return v === undefined ? undefined : !v;
  }
  if (ts.isBinaryExpression(n)) {
    const l = switchValue(n.left, o);
    const r = switchValue(n.right, o);
    if (n.operatorToken.kind === ts.SyntaxKind.AmpersandAmpersandToken)
      return l === false || r === false ? false : l === true && r === true ? true : undefined;
    if (n.operatorToken.kind === ts.SyntaxKind.BarBarToken)
      return l === true || r === true ? true : l === false && r === false ? false : undefined;
  }
  return undefined;
}

function isSwitchCall(n: ts.Node, o: Required<MutateOptions>): boolean {
  if (!ts.isCallExpression(n) || !ts.isPropertyAccessExpression(n.expression) || n.expression.name.text !== 'on')
    return false;
  const a = n.arguments[0];
  return !!a && ts.isStringLiteral(a) && o.switchNames.has(a.text);
}

function isSwitchFlag(n: ts.Node, o: Required<MutateOptions>): boolean {
  return ts.isPropertyAccessExpression(n) && o.switchFlags.has(n.name.text);
}

/** Property names assigned a switch in an object literal (`{ wrongSecret: v.on('hook-wrong-secret') }`). */
export function findSwitchFlags(text: string, switchNames: ReadonlySet<string>): Set<string> {
  const sf = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const o = { switchNames, switchFlags: new Set<string>() };
  const flags = new Set<string>();
  const visit = (n: ts.Node) => {
    if (
      ts.isPropertyAssignment(n) &&
      (ts.isIdentifier(n.name) || ts.isStringLiteral(n.name)) &&
      isSwitchCall(n.initializer, o)
    )
      flags.add(n.name.text);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return flags;
}

/** Every mutant of `text` (the file's path is only recorded, and part of each key). */
export function mutate(file: string, text: string, options: MutateOptions = {}): Mutant[] {
  const o: Required<MutateOptions> = {
    switchNames: options.switchNames ?? new Set(),
    switchFlags: options.switchFlags ?? new Set(),
  };
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: Omit<Mutant, 'key' | 'line' | 'column'>[] = [];
  const keyParts: string[] = [];
  const add = (
    node: ts.Node | { start: number; end: number; stmt: ts.Node },
    operator: string,
    replacement: string,
  ) => {
    const start = 'getStart' in node ? node.getStart(sf) : node.start;
    const end = 'getStart' in node ? node.getEnd() : node.end;
    const original = text.slice(start, end);
    if (original === replacement) return;
    let stmt: ts.Node = 'getStart' in node ? node : node.stmt;
    while (stmt.parent && !ts.isStatement(stmt) && !ts.isClassElement(stmt)) stmt = stmt.parent;
    out.push({ file, operator, start, end, original, replacement });
    keyParts.push([file, operator, squash(stmt.getText(sf)), original, replacement].join('\u0000'));
  };

  const visit = (n: ts.Node): void => {
    // not code: imports, exports of names, types, and everything a planted switch owns
    if (
      ts.isImportDeclaration(n) ||
      ts.isExportDeclaration(n) ||
      ts.isTypeNode(n) ||
      ts.isInterfaceDeclaration(n) ||
      ts.isTypeAliasDeclaration(n)
    )
      return;
    if (isSwitchCall(n, o) || isSwitchFlag(n, o)) return;
    if (
      ts.isCallExpression(n) &&
      ts.isPropertyAccessExpression(n.expression) &&
      ts.isIdentifier(n.expression.expression) &&
      n.expression.expression.text === 'console'
    )
      return;

    // conditions taken only with a switch on
    if (ts.isIfStatement(n) || ts.isConditionalExpression(n)) {
      const cond = ts.isIfStatement(n) ? n.expression : n.condition;
      const whenTrue = ts.isIfStatement(n) ? n.thenStatement : n.whenTrue;
      const whenFalse = ts.isIfStatement(n) ? n.elseStatement : n.whenFalse;
      const sv = switchValue(cond, o);
      if (sv === undefined) {
        add(cond, 'condition', 'true');
        add(cond, 'condition', 'false');
      }
      visit(cond);
      if (sv !== false) visit(whenTrue);
      if (sv !== true && whenFalse) visit(whenFalse);
      if (ts.isIfStatement(n) && sv === undefined && ts.isBlock(n.thenStatement) && n.thenStatement.statements.length)
        add(n.thenStatement, 'block', '{}');
      return;
    }
    if (ts.isBinaryExpression(n)) {
      const k = n.operatorToken.kind;
      const tok = { start: n.operatorToken.getStart(sf), end: n.operatorToken.getEnd(), stmt: n };
      // the right side of `switch && x` never runs, of `switch || x` always does
      if (k === ts.SyntaxKind.AmpersandAmpersandToken && switchValue(n.left, o) === false) return visit(n.left);
      if (k === ts.SyntaxKind.BarBarToken && switchValue(n.left, o) === true) return visit(n.left);
      if (EQUALITY[k]) add(tok, 'equality', EQUALITY[k]);
      else if (BOUNDARY[k]) add(tok, 'boundary', BOUNDARY[k]);
      else if (LOGICAL[k]) add(tok, 'logical', LOGICAL[k]);
      else if (ARITHMETIC[k]) {
        const concat =
          (k === ts.SyntaxKind.PlusToken || k === ts.SyntaxKind.PlusEqualsToken) &&
          (isStringish(n.left) || isStringish(n.right));
        if (!concat) add(tok, 'arithmetic', ARITHMETIC[k]);
      }
    }
    if (ts.isPrefixUnaryExpression(n)) {
      if (n.operator === ts.SyntaxKind.ExclamationToken && switchValue(n.operand, o) === undefined)
        add(n, 'negation', n.operand.getText(sf));
      if (n.operator === ts.SyntaxKind.PlusPlusToken || n.operator === ts.SyntaxKind.MinusMinusToken)
        add(n, 'update', `${n.operator === ts.SyntaxKind.PlusPlusToken ? '--' : '++'}${n.operand.getText(sf)}`);
    }
    if (ts.isPostfixUnaryExpression(n))
      add(n, 'update', `${n.operand.getText(sf)}${n.operator === ts.SyntaxKind.PlusPlusToken ? '--' : '++'}`);
    if (n.kind === ts.SyntaxKind.TrueKeyword) add(n, 'boolean', 'false');
    if (n.kind === ts.SyntaxKind.FalseKeyword) add(n, 'boolean', 'true');
    if (ts.isNumericLiteral(n) && /^\d+(_\d+)*$/.test(n.text) && !ts.isElementAccessExpression(n.parent))
      add(n, 'number', n.text === '0' ? '1' : String(Number(n.text) + 1));
    if (
      (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n) || ts.isTemplateExpression(n)) &&
      stringMutable(n)
    )
      add(n, 'string', n.getText(sf).startsWith('`') ? '``' : "''");
    if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression)) {
      const name = n.expression.name.text;
      if (METHODS[name]) add(n.expression.name, 'method', METHODS[name]);
      if (DROPPABLE.has(name)) add(n, 'method', n.expression.expression.getText(sf));
    }
    if (
      (ts.isFunctionDeclaration(n) ||
        ts.isMethodDeclaration(n) ||
        ts.isArrowFunction(n) ||
        ts.isFunctionExpression(n)) &&
      n.body &&
      ts.isBlock(n.body) &&
      n.body.statements.length
    ) {
      const returns = n.body.statements.some(function hasReturn(s: ts.Node): boolean {
        return (
          (ts.isReturnStatement(s) && !!s.expression) ||
          (!ts.isFunctionLike(s) && ts.forEachChild(s, hasReturn) === true)
        );
      });
      if (!returns) add(n.body, 'block', '{}');
    }
    ts.forEachChild(n, visit);
  };

  /** Strings that are code, not names: no keys, no element-access or `in` names, no empty strings. */
  function stringMutable(n: ts.StringLiteral | ts.NoSubstitutionTemplateLiteral | ts.TemplateExpression): boolean {
    if (!ts.isTemplateExpression(n) && n.text === '') return false;
    const p = n.parent;
    if (ts.isPropertyAssignment(p) && p.name === n) return false;
    if (ts.isElementAccessExpression(p) && p.argumentExpression === n) return false;
    if (ts.isBinaryExpression(p) && p.operatorToken.kind === ts.SyntaxKind.InKeyword && p.left === n) return false;
    if (ts.isCallExpression(p) && ts.isIdentifier(p.expression) && p.expression.text === 'require') return false;
    if (ts.isLiteralTypeNode(p)) return false;
    return true;
  }

  visit(sf);
  const seen = new Map<string, number>();
  return out
    .map((m, i) => {
      const base = keyParts[i];
      const rank = seen.get(base) ?? 0;
      seen.set(base, rank + 1);
      const lc = sf.getLineAndCharacterOfPosition(m.start);
      return {
        key: `${file.split('/').pop()!.replace(/\.ts$/, '')}-${hash(`${base}\u0000${rank}`).slice(0, 10)}`,
        line: lc.line + 1,
        column: lc.character + 1,
        ...m,
      };
    })
    .sort((a, b) => a.start - b.start || a.end - b.end || a.operator.localeCompare(b.operator));
}

/** The source with one mutant applied. */
export const applyMutant = (text: string, m: Pick<Mutant, 'start' | 'end' | 'replacement'>) =>
  text.slice(0, m.start) + m.replacement + text.slice(m.end);

/** A unified-style diff of the changed line(s). */
export function mutantDiff(text: string, m: Mutant): string {
  const lineStart = text.lastIndexOf('\n', m.start - 1) + 1;
  const lineEndIdx = text.indexOf('\n', m.end);
  const lineEnd = lineEndIdx === -1 ? text.length : lineEndIdx;
  const before = text.slice(lineStart, lineEnd);
  const after = text.slice(lineStart, m.start) + m.replacement + text.slice(m.end, lineEnd);
  const pre = (s: string, c: string) =>
    s
      .split('\n')
      .map((l) => `${c} ${l}`)
      .join('\n');
  return `--- ${m.file}:${m.line}\n+++ ${m.file}:${m.line} (${m.operator})\n${pre(before, '-')}\n${pre(after, '+')}`;
}
