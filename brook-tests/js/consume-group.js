// Run by KafkaJsIT: node consume-group.js BOOTSTRAP TOPIC GROUP EXPECTED
// Two kafkajs consumers in one group read a topic from the beginning until they have EXPECTED
// records between them, commit, and leave; then the admin client reads the group's offsets.
// Prints one line per finding; exits non-zero on any error.
'use strict';

const { Kafka, logLevel } = require('kafkajs');

const [bootstrap, topic, groupId, expectedArg] = process.argv.slice(2);
const expected = Number(expectedArg);
if (!bootstrap || !topic || !groupId || !(expected > 0)) {
  console.error('usage: node consume-group.js BOOTSTRAP TOPIC GROUP EXPECTED');
  process.exit(2);
}

function check(condition, message) {
  if (!condition) {
    throw new Error('check failed: ' + message);
  }
}

async function main() {
  const kafka = new Kafka({
    clientId: 'brook-kafkajs-group-it',
    brokers: [bootstrap],
    logLevel: logLevel.WARN,
    retry: { retries: 5 },
  });
  const seen = new Set();
  const members = new Set();
  let resolveDone;
  const done = new Promise((resolve) => (resolveDone = resolve));
  const consumers = [];
  for (let i = 0; i < 2; i++) {
    const consumer = kafka.consumer({ groupId, sessionTimeout: 10000, heartbeatInterval: 1000 });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    consumer.on(consumer.events.GROUP_JOIN, (e) => members.add(e.payload.memberId));
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        seen.add(partition + ':' + message.offset);
        if (seen.size >= expected) {
          resolveDone();
        }
      },
    });
    consumers.push(consumer);
  }
  const timeout = setTimeout(() => resolveDone('timeout'), 60000);
  const outcome = await done;
  clearTimeout(timeout);
  check(outcome !== 'timeout', 'consumed only ' + seen.size + ' of ' + expected);
  console.log('consumed ' + seen.size);
  console.log('members ' + members.size);
  for (const consumer of consumers) {
    await consumer.disconnect();
  }

  const admin = kafka.admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchOffsets({ groupId, topics: [topic] });
    const committed = offsets[0].partitions
      .map((p) => p.partition + '=' + p.offset)
      .sort()
      .join(' ');
    console.log('committed ' + committed);
    const groups = await admin.listGroups();
    check(
      groups.groups.some((g) => g.groupId === groupId),
      'listGroups misses ' + groupId + ': ' + JSON.stringify(groups)
    );
    console.log('listed ' + groupId);
  } finally {
    await admin.disconnect();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
