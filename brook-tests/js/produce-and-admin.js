// Run by KafkaJsIT: node produce-and-admin.js BOOTSTRAP TOPIC
// kafkajs admin + producer against Brook; the Java side reads the records back with kafka-clients.
// Prints one line per finding; exits non-zero on any error.
'use strict';

const { Kafka, CompressionTypes, logLevel } = require('kafkajs');

const [bootstrap, topic] = process.argv.slice(2);
if (!bootstrap || !topic) {
  console.error('usage: node produce-and-admin.js BOOTSTRAP TOPIC');
  process.exit(2);
}

const PARTITIONS = 3;
const MESSAGES = 1000;
const PER_SEND = 100;

function check(condition, message) {
  if (!condition) {
    throw new Error('check failed: ' + message);
  }
}

async function main() {
  const kafka = new Kafka({
    clientId: 'brook-kafkajs-it',
    brokers: [bootstrap],
    logLevel: logLevel.WARN,
    retry: { retries: 3 },
  });
  const admin = kafka.admin();
  await admin.connect();
  try {
    const created = await admin.createTopics({
      topics: [{ topic, numPartitions: PARTITIONS, replicationFactor: 1 }],
      waitForLeaders: true,
    });
    check(created === true, 'createTopics returned ' + created);
    console.log('created ' + topic);

    const topics = await admin.listTopics();
    check(topics.includes(topic), 'listTopics does not include ' + topic + ': ' + topics);

    const metadata = await admin.fetchTopicMetadata({ topics: [topic] });
    const partitions = metadata.topics[0].partitions;
    check(partitions.length === PARTITIONS, 'partitions: ' + JSON.stringify(partitions));
    for (const p of partitions) {
      check(p.leader === 1 && p.partitionErrorCode === 0, 'partition ' + JSON.stringify(p));
    }
    console.log('metadata partitions=' + partitions.length + ' leader=1');

    const producer = kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
    try {
      for (let start = 0; start < MESSAGES; start += PER_SEND) {
        const messages = [];
        for (let i = start; i < start + PER_SEND; i++) {
          messages.push({
            key: 'key-' + i,
            value: 'kafkajs value ' + i,
            headers: { seq: String(i), client: 'kafkajs' },
          });
        }
        // The first half gzip-compressed, the second half not.
        const compression = start < MESSAGES / 2 ? CompressionTypes.GZIP : CompressionTypes.None;
        const results = await producer.send({ topic, messages, acks: -1, compression });
        for (const r of results) {
          check(r.errorCode === 0, 'produce result ' + JSON.stringify(r));
        }
      }
    } finally {
      await producer.disconnect();
    }
    console.log('sent ' + MESSAGES);

    const offsets = await admin.fetchTopicOffsets(topic);
    offsets.sort((a, b) => a.partition - b.partition);
    let total = 0;
    for (const o of offsets) {
      check(o.low === '0', 'low offset ' + JSON.stringify(o));
      total += Number(o.high);
    }
    check(total === MESSAGES, 'high watermarks add up to ' + total);
    console.log('offsets ' + offsets.map((o) => o.partition + ':' + o.high).join(' '));
  } finally {
    await admin.disconnect();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error('FAILED', e);
    process.exit(1);
  }
);
