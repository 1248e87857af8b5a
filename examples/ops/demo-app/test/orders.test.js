'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { findOrder, orderTotal } = require('../src/orders');

test('orderTotal takes the discount off the items’ sum', () => {
  const order = { id: 't1', items: [{ sku: 'mug', price: 12.5, quantity: 2 }], discount: { code: 'WELCOME10', percent: 10 } };
  assert.equal(orderTotal(order), 22.5);
});

test('orderTotal rounds to the cent', () => {
  const order = { id: 't2', items: [{ sku: 'pen', price: 0.333, quantity: 3 }], discount: { code: 'PENS', percent: 5 } };
  assert.equal(orderTotal(order), 0.95);
});

test('findOrder finds a known order and nothing for an unknown id', () => {
  assert.equal(findOrder('1001').id, '1001');
  assert.equal(findOrder('nope'), undefined);
});
