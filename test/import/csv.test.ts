import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkRange, checkTitle, csvRecords, detectSeparator, exportAppOf, numberField, readCsvTable, type CsvRecord } from '../../services/import/csv.ts';
import { ImportRowError, WrongExportError } from '../../services/import/types.ts';
import { strengthFit } from '../fixtures/fit-files.ts';

function records(text: string, separator: ',' | ';' = ','): CsvRecord[] {
  return [...csvRecords(text, separator)];
}

function rowError(fn: () => unknown): ImportRowError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ImportRowError) return e;
    throw e;
  }
  throw new Error('expected an ImportRowError');
}

test('a binary file (an image chosen by mistake) is refused as not a CSV, not by its missing columns', () => {
  const png = Buffer.from([
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0xff, 0xfe, 0xfd, 0xfc, 0xe0, 0xe1,
  ]).toString('utf8');
  const e = rowError(() => readCsvTable(png, { required: ['a'] }));
  assert.is(e.line, 1);
  assert.match(e.message, 'this is not a CSV text file');
  // Text in another language is text: accents and CJK pass.
  assert.is(readCsvTable('título,名前\nPress,ベンチ\n', { required: ['título'] }).rows.length, 1);
});

test('a Garmin FIT file is refused as one, saying how to import it', () => {
  const fit = Buffer.from(strengthFit({ serialNumber: 1, start: new Date('2026-03-02T07:00:00Z') })).toString('utf8');
  const e = rowError(() => readCsvTable(fit, { required: ['a'] }));
  assert.is(e.line, 1);
  assert.match(e.message, /^line 1: this is a Garmin FIT file, not a CSV export: import it as Garmin FIT files/);
});

test('plain records with their line numbers', () => {
  assert.equal(records('a,b\n1,2\n3,4\n'), [
    { line: 1, fields: ['a', 'b'] },
    { line: 2, fields: ['1', '2'] },
    { line: 3, fields: ['3', '4'] },
  ]);
});

test('quoted fields hold separators, doubled quotes and line breaks', () => {
  const text = 'a,b,c\n"x, y","say ""hi""","two\nlines"\nlast,"",\n';
  assert.equal(records(text), [
    { line: 1, fields: ['a', 'b', 'c'] },
    { line: 2, fields: ['x, y', 'say "hi"', 'two\nlines'] },
    { line: 4, fields: ['last', '', ''] },
  ]);
});

test('CRLF line ends, also inside quotes, read like LF', () => {
  assert.equal(records('a,b\r\n"1\r\n2",3\r\n4,5'), [
    { line: 1, fields: ['a', 'b'] },
    { line: 2, fields: ['1\n2', '3'] },
    { line: 4, fields: ['4', '5'] },
  ]);
});

test('a UTF-8 BOM is dropped', () => {
  assert.equal(records('\ufeff"title",b\nx,y')[0], { line: 1, fields: ['title', 'b'] });
});

test('blank lines are skipped but still counted', () => {
  assert.equal(records('a\n\n\nb\n  \n'), [
    { line: 1, fields: ['a'] },
    { line: 4, fields: ['b'] },
  ]);
});

test('a quoted empty field alone on a line is a record, not a blank line', () => {
  assert.equal(records('a\n""\n"  "\nb\n'), [
    { line: 1, fields: ['a'] },
    { line: 2, fields: [''] },
    { line: 3, fields: ['  '] },
    { line: 4, fields: ['b'] },
  ]);
});

test('table: a row of one quoted empty field is refused with its line, like any short row', () => {
  const e = rowError(() => readCsvTable('a,b\n1,2\n""\n3,4\n', { required: ['a'] }));
  assert.is(e.line, 3);
  assert.is(e.message, 'line 3: row has 1 field; the header has 2');
});

test('semicolon separator keeps commas inside fields', () => {
  assert.equal(records('a;b\n102,5;"x;y"', ';')[1]!.fields, ['102,5', 'x;y']);
});

test('separator is detected from the header line only', () => {
  assert.is(detectSeparator('Date;Workout Name;Notes\n"a,b,c,d";x;y'), ';');
  assert.is(detectSeparator('"title","start_time"\n1;2;3;4;5'), ',');
  assert.is(detectSeparator('"a;b;c",d,e\n'), ',');
  assert.is(detectSeparator('\ufeffa;b'), ';');
  assert.is(detectSeparator(''), ',');
});

test('an unclosed quote is refused at the line it opens', () => {
  const e = rowError(() => records('a,b\n1,"never\nclosed\n'));
  assert.is(e.line, 2);
  assert.match(e.message, 'never closed');
});

test('text after a closing quote is refused', () => {
  const e = rowError(() => records('a,b\n"x"y,2\n'));
  assert.is(e.line, 2);
  assert.match(e.message, `unexpected 'y'`);
});

test('table: columns by name, any case, trimmed, any order; optional ones read as empty', () => {
  const table = readCsvTable('  WEIGHT ,Title,extra\n80,Bench,zzz\n', {
    required: ['title', 'weight'],
    optional: ['rpe'],
  });
  assert.is(table.separator, ',');
  assert.equal(table.rows, [{ line: 2, values: { title: 'Bench', weight: '80', rpe: '' } }]);
});

test('table: missing columns are named, at line 1', () => {
  const e = rowError(() => readCsvTable('title,reps\n', { required: ['title', 'weight_kg', 'rpe'] }));
  assert.is(e.line, 1);
  assert.is(e.message, `line 1: missing columns 'weight_kg', 'rpe' in the header`);
});

test('table: an empty text is refused (it has not even a header); a header alone has no rows', () => {
  for (const empty of ['', '\ufeff', '\n\n', '  \r\n']) {
    const e = rowError(() => readCsvTable(empty, { required: ['a'] }));
    assert.is(e.line, 1, JSON.stringify(empty));
    assert.match(e.message, 'the file is empty');
  }
  assert.equal(readCsvTable('a,b\r\n', { required: ['a'] }).rows, []);
});

test('table: one of a group of columns, e.g. a measure in either unit', () => {
  const spec = { required: ['a'], optional: ['w_kg', 'w_lbs'], oneOf: [['w_kg', 'w_lbs']] } as const;
  const table = readCsvTable('a,W_LBS\n1,225\n', spec);
  assert.equal([...table.columns].sort(), ['a', 'w_lbs']);
  assert.equal(table.rows[0]!.values, { a: '1', w_kg: '', w_lbs: '225' });
  assert.is(rowError(() => readCsvTable('a\n1\n', spec)).message, `line 1: missing column 'w_kg' or 'w_lbs' in the header`);
  assert.is(rowError(() => readCsvTable('a,w_kg,w_lbs\n', spec)).message, `line 1: the header has 'w_kg' and 'w_lbs'; an export has one of them`);
});

test('table: a header another app writes is named, not listed as missing columns', () => {
  const strongHeader = 'Date;Workout Name;Duration;Exercise Name;Set Order;Weight;Reps;Distance;Seconds\n';
  const e = rowError(() => readCsvTable(strongHeader, { required: ['title', 'exercise_title'], app: 'hevy' }));
  assert.instance(e, WrongExportError);
  assert.is(e.message, 'line 1: this looks like a Strong export, not a Hevy one');
  // Without an app to compare with, or from an unknown app, the missing columns are listed.
  assert.match(rowError(() => readCsvTable(strongHeader, { required: ['title'] })).message, `missing column 'title'`);
  assert.match(rowError(() => readCsvTable('x,y\n', { required: ['title'], app: 'hevy' })).message, `missing column 'title'`);
});

test('exportAppOf: each app by its own columns', () => {
  assert.is(exportAppOf(['title', 'start_time', 'end_time', 'exercise_title', 'set_index', 'weight_lbs']), 'hevy');
  assert.is(exportAppOf(['date', 'workout name', 'exercise name', 'set order', 'weight']), 'strong');
  assert.is(exportAppOf(['title', 'weight']), null);
});

test('table: a short row is refused, trailing empty extras are not', () => {
  assert.is(readCsvTable('a,b\n1,2,,\n', { required: ['a'] }).rows.length, 1);
  const e = rowError(() => readCsvTable('a,b,c\n1,2,3\n1,2\n', { required: ['a'] }));
  assert.is(e.line, 3);
  assert.match(e.message, 'row has 2 fields; the header has 3');
});

test('table: a given separator overrides detection', () => {
  const table = readCsvTable('a;b,c\n1;2,3\n', { required: ['a'], separator: ';' });
  assert.equal(table.rows[0]!.values, { a: '1' });
});

test('numbers: plain decimals; decimal comma only when asked', () => {
  assert.is(numberField(1, 'w', ' 102.5 '), 102.5);
  assert.is(numberField(1, 'w', '-3'), -3);
  assert.is(numberField(1, 'w', '5.'), 5);
  assert.is(numberField(1, 'w', ''), null);
  assert.is(numberField(1, 'w', '102,5', true), 102.5);
  assert.is(rowError(() => numberField(7, 'w', '102,5')).message, `line 7: w '102,5' is not a number`);
  for (const bad of ['abc', '1e3', '1,000.5', 'NaN', 'Infinity', '0x10', '1 000']) {
    assert.throws(
      () => numberField(1, 'w', bad, true),
      (e: unknown) => e instanceof ImportRowError,
      bad,
    );
  }
});

test('ranges and titles', () => {
  assert.is(rowError(() => checkRange(4, 'reps', -3, 0, 10)).message, 'line 4: reps -3 must be >= 0');
  assert.is(rowError(() => checkRange(4, 'Weight', 5000, 0, 2000, 'kg')).message, 'line 4: Weight 5000 must be <= 2000 kg');
  assert.is(checkTitle(1, 'title', '  Push  '), 'Push');
  assert.is(rowError(() => checkTitle(2, 'title', '   ')).message, 'line 2: title is empty');
  assert.is(checkTitle(1, 'title', 'x'.repeat(200)).length, 200);
  assert.match(rowError(() => checkTitle(3, 'title', 'x'.repeat(201))).message, 'at most 200');
});

test.run();
