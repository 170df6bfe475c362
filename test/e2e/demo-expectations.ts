/**
 * What every official client must see when it drives the demo manifest (mcp.yaml.example), whatever
 * the protocol era. clients.test.ts runs this same script in every cell of its matrix: {stdio, http}
 * × {the SDK v1 client (2025 era), the SDK v2 client pinned to 2026-07-28}.
 */
import assert from 'node:assert/strict';

type Json = Record<string, any>;

/** The surface both official clients share. */
export interface DemoClient {
  listTools(): Promise<Json>;
  callTool(params: { name: string; arguments?: Json }): Promise<Json>;
  listResources(): Promise<Json>;
  listResourceTemplates(): Promise<Json>;
  readResource(params: { uri: string }): Promise<Json>;
  listPrompts(): Promise<Json>;
  getPrompt(params: { name: string; arguments?: Record<string, string> }): Promise<Json>;
  complete(params: Json): Promise<Json>;
}

export async function listsEverything(client: DemoClient): Promise<void> {
  const { tools } = await client.listTools();
  assert.deepEqual(
    tools.map((t: Json) => t.name),
    ['find_orders', 'search_products', 'sales_by_category'],
  );
  const findOrders = tools[0];
  assert.equal(findOrders.title, 'Find orders');
  assert.deepEqual(findOrders.inputSchema.required, ['email']);
  assert.equal(findOrders.inputSchema.properties.limit.default, 20);
  assert.equal(findOrders.annotations.readOnlyHint, true);

  const { resources } = await client.listResources();
  assert.deepEqual(
    resources.map((r: Json) => [r.uri, r.mimeType]),
    [
      ['shop://docs/handbook.md', 'text/markdown'],
      ['shop://docs/policies/returns.md', 'text/markdown'],
      ['shop://docs/policies/shipping.md', 'text/markdown'],
    ],
  );
  const { resourceTemplates } = await client.listResourceTemplates();
  assert.deepEqual(
    resourceTemplates.map((t: Json) => t.uriTemplate),
    ['shop://orders/{id}'],
  );
  const { prompts } = await client.listPrompts();
  assert.deepEqual(
    prompts.map((p: Json) => [p.name, p.arguments.map((a: Json) => [a.name, a.required ?? false])]),
    [
      [
        'summarize_customer',
        [
          ['email', true],
          ['tone', false],
        ],
      ],
    ],
  );
}

export async function callsEveryTool(client: DemoClient): Promise<void> {
  const orders = await client.callTool({ name: 'find_orders', arguments: { email: 'ada@example.com' } });
  assert.equal(orders.isError, undefined);
  assert.deepEqual(
    orders.structuredContent.rows.map((r: Json) => [r.id, r.status, r.total]),
    [
      [1002, 'shipped', 129],
      [1001, 'delivered', 77],
    ],
  );
  assert.match(orders.content[0].text, /\| 1002 \| shipped \| 2025-09-12 \| 129 \|/);
  assert.match(orders.content[0].text, /2 rows\./);

  const limited = await client.callTool({
    name: 'find_orders',
    arguments: { email: 'ada@example.com', limit: 1 },
  });
  assert.equal(limited.structuredContent.rowCount, 1);

  const products = await client.callTool({
    name: 'search_products',
    arguments: { text: 'o', category: 'hardware' },
  });
  assert.deepEqual(
    products.structuredContent.rows.map((r: Json) => r.sku),
    ['KB-010', 'MS-020'],
  );

  const sales = await client.callTool({ name: 'sales_by_category', arguments: {} });
  assert.deepEqual(sales.structuredContent.rows, [
    { category: 'books', units: 4, revenue: 226.5 },
    { category: 'hardware', units: 2, revenue: 188.9 },
    { category: 'merch', units: 17, revenue: 133 },
  ]);

  const invalid = await client.callTool({
    name: 'find_orders',
    arguments: { email: 'ada@example.com', limit: 500 },
  });
  assert.equal(invalid.isError, true);
  assert.match(invalid.content[0].text, /limit must be <= 100/);

  // Bound, never pasted: the classic injection finds no customer and changes nothing.
  const injected = await client.callTool({ name: 'find_orders', arguments: { email: "' OR 1=1 --" } });
  assert.equal(injected.structuredContent.rowCount, 0);
  assert.equal(injected.content[0].text, 'No rows.');
  const after = await client.callTool({ name: 'sales_by_category', arguments: {} });
  assert.deepEqual(after.structuredContent, sales.structuredContent);
}

export async function readsEveryResource(client: DemoClient): Promise<void> {
  const handbook = await client.readResource({ uri: 'shop://docs/handbook.md' });
  assert.equal(handbook.contents[0].mimeType, 'text/markdown');
  assert.match(handbook.contents[0].text, /^# Support handbook/);

  const returns = await client.readResource({ uri: 'shop://docs/policies/returns.md' });
  assert.match(returns.contents[0].text, /within 30 days of delivery/);

  const order = await client.readResource({ uri: 'shop://orders/1003' });
  assert.equal(order.contents[0].mimeType, 'application/json');
  const body = JSON.parse(order.contents[0].text);
  assert.deepEqual(
    body.rows.map((r: Json) => [r.email, r.quantity]),
    [
      ['grace@example.com', 1],
      ['grace@example.com', 4],
    ],
  );
}

export async function getsEveryPrompt(client: DemoClient): Promise<void> {
  const plain = await client.getPrompt({
    name: 'summarize_customer',
    arguments: { email: 'ada@example.com' },
  });
  assert.equal(plain.messages.length, 1);
  assert.equal(plain.messages[0].role, 'user');
  assert.match(plain.messages[0].content.text, /^Summarise the order history of ada@example\.com\.\n/);

  const toned = await client.getPrompt({
    name: 'summarize_customer',
    arguments: { email: 'ada@example.com', tone: 'brief' },
  });
  assert.match(toned.messages[0].content.text, /ada@example\.com in a brief way\./);

  const completion = await client.complete({
    ref: { type: 'ref/prompt', name: 'summarize_customer' },
    argument: { name: 'tone', value: 'b' },
  });
  assert.deepEqual(completion.completion.values, ['brief']);
}

/** Protocol errors the clients surface as rejections, with the code of each era. */
export async function rejectsMistakes(client: DemoClient, notFoundCode: number): Promise<void> {
  await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), (err: Json) => {
    assert.equal(err.code, -32602);
    assert.match(err.message, /no_such_tool/);
    return true;
  });
  await assert.rejects(client.readResource({ uri: 'shop://orders/9999' }), (err: Json) => {
    assert.equal(err.code, notFoundCode);
    return true;
  });
  await assert.rejects(client.getPrompt({ name: 'summarize_customer', arguments: {} }), (err: Json) => {
    assert.equal(err.code, -32602);
    assert.match(err.message, /email/);
    return true;
  });
}
