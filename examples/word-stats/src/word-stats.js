'use strict';

/** Splits text into lower-case words: letters, digits and inner apostrophes. */
function words(text) {
  if (typeof text !== 'string') throw new TypeError('text must be a string');
  return text.toLowerCase().match(/[\p{L}\p{N}]+(?:'[\p{L}\p{N}]+)*/gu) ?? [];
}

/** Number of words in the text. */
function countWords(text) {
  return words(text).length;
}

module.exports = { words, countWords };
