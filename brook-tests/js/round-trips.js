// Run by MalformedInputIT: node round-trips.js BOOTSTRAP TOPIC
// A well-behaved kafkajs client beside hostile ones: until stdin closes, sends one record at a time
// to partition 0 of TOPIC, checks it got the next offset and that the admin API sees the new end
// offset, and prints "ok N" after each round. Any error prints "error ..." and exits non-zero.
'use strict';

const { Kafka, logLevel } = require('kafkajs');

const [bootstrap, topic] = process.argv.slice(2);
if (!bootstrap || !topic) {
  console.error('usage: node round-trips.js BOOTSTRAP TOPIC');
  process.exit(2);
}

let running = true;
process.stdin.on('end', () => {
  running = false;
});
process.stdin.resume();

async function main() {
  const kafka = new Kafka({
    clientId: 'brook-kafkajs-round-trips',
    brokers: [bootstrap],
    logLevel: logLevel.WARN,
    retry: { retries: 3 },
  });
  const admin = kafka.admin();
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await admin.connect();
  await producer.connect();
  try {
    for (let round = 0; running; round++) {
      const [sent] = await producer.send({
        topic,
        acks: -1,
        messages: [{ value: 'kafkajs-' + round, partition: 0 }],
      });
      if (sent.errorCode !== 0 || Number(sent.baseOffset) !== round) {
        throw new Error('round ' + round + ' got ' + JSON.stringify(sent));
      }
      const offsets = await admin.fetchTopicOffsets(topic);
      const end = offsets.find((o) => o.partition === 0);
      if (!end || Number(end.high) !== round + 1) {
        throw new Error('round ' + round + ' end offsets ' + JSON.stringify(offsets));
      }
      console.log('ok ' + round);
    }
  } finally {
    await producer.disconnect();
    await admin.disconnect();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.log('error ' + (e && e.stack ? e.stack : e));
    process.exit(1);
  },
);
