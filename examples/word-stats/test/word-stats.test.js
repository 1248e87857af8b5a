'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { words, countWords } = require('../src/word-stats');

test('words are lower-cased and split on anything that is not a letter or digit', () => {
  assert.deepEqual(words('Hello, world! Hello again.'), ['hello', 'world', 'hello', 'again']);
});

test("inner apostrophes stay part of the word", () => {
  assert.deepEqual(words("Don't stop"), ["don't", 'stop']);
});

test('countWords counts words, not whitespace', () => {
  assert.equal(countWords('  one two   three '), 3);
  assert.equal(countWords(''), 0);
});

test('non-string input is refused', () => {
  assert.throws(() => countWords(42), TypeError);
});
