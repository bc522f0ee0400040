// An independent A2A client (@a2a-js/sdk) sends a promise to pinki's ledger
// agent and reads it back. Run by a2a/e2e_test.go:
//   node client.mjs BASE_URL SEAT [TOKEN]
// (TOKEN is the bearer token; the in-process test agent takes the seat as one).
// It prints one JSON object: the card's extension entry, the declared task,
// the task read back with GetTask, the resolved task, and the error a
// message without a record gets, each in v1.0 wire form.
import { ClientFactory } from '@a2a-js/sdk/client';
import { Role, Task } from '@a2a-js/sdk';

const [base, seat, token = seat] = process.argv.slice(2);
const URI = 'https://github.com/azigler/pinki/ext/promise/v0';
const KEY = URI + '/promise';

const client = await new ClientFactory().createFromUrl(base);
const card = await client.getAgentCard();
const opts = { serviceParameters: { Authorization: 'Bearer ' + token, 'A2A-Extensions': URI } };

function message(record, withExtension = true) {
  return {
    messageId: 'js-' + Math.random().toString(16).slice(2),
    contextId: '', taskId: '', role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: 'a promise, in the metadata' }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
    metadata: record === undefined ? undefined : { [KEY]: record },
    extensions: withExtension ? [URI] : [],
    referenceTaskIds: [],
  };
}
const send = (m) => client.sendMessage({ tenant: '', message: m, configuration: undefined, metadata: undefined }, opts);

const out = {};
out.extension = (card.capabilities?.extensions ?? []).find((e) => e.uri === URI) ?? null;
const declared = await send(message({
  id: 'js/ship-1', promise: 'hand back a reviewed schema', by: seat,
  to: 'https://example.org/agents/author', until: '2026-09-02T17:00:00Z',
}));
out.declared = Task.toJSON(declared);
out.fetched = Task.toJSON(await client.getTask({ tenant: '', id: 'js/ship-1' }, opts));
out.resolved = Task.toJSON(await send(message({
  id: 'js/ship-1', resolve: { as: 'satisfied', evidence: ['https://example.org/reviews/1'] },
})));
try {
  await send(message(undefined));
  out.refused = null;
} catch (e) {
  out.refused = { name: e?.constructor?.name ?? '', message: String(e?.message ?? e), code: e?.code ?? null };
}
console.log(JSON.stringify(out));
