'use strict';

/** The shop's orders (in memory: the demo needs no database). */
const orders = new Map([
  ['1001', { id: '1001', items: [{ sku: 'mug', price: 12.5, quantity: 2 }], discount: { code: 'WELCOME10', percent: 10 } }],
  ['1002', { id: '1002', items: [{ sku: 'tea', price: 4, quantity: 3 }] }],
]);

function findOrder(id) {
  return orders.get(id);
}

/** What the customer pays: the items' sum less the order's discount, to the cent. */
function orderTotal(order) {
  const subtotal = order.items.reduce((sum, item) => sum + item.price * item.quantity, 0);
  const total = subtotal * (1 - order.discount.percent / 100);
  return Math.round(total * 100) / 100;
}

module.exports = { findOrder, orderTotal };
