// Run by KafkaJsIT: node admin-operations.js BOOTSTRAP TOPIC
// The rest of the kafkajs admin client that Brook's APIs cover, and kafkajs' idempotent producer.
// Prints one line per finding; exits non-zero on any error.
'use strict';

const { Kafka, CompressionTypes, ConfigResourceTypes, logLevel } = require('kafkajs');

const [bootstrap, topic] = process.argv.slice(2);
if (!bootstrap || !topic) {
  console.error('usage: node admin-operations.js BOOTSTRAP TOPIC');
  process.exit(2);
}

function check(condition, message) {
  if (!condition) {
    throw new Error('check failed: ' + message);
  }
}

async function main() {
  const kafka = new Kafka({
    clientId: 'brook-kafkajs-admin-it',
    brokers: [bootstrap],
    logLevel: logLevel.WARN,
    retry: { retries: 3 },
  });
  const admin = kafka.admin();
  await admin.connect();
  try {
    const cluster = await admin.describeCluster();
    check(cluster.brokers.length === 1 && cluster.brokers[0].nodeId === 1, JSON.stringify(cluster));
    check(cluster.controller === 1, 'controller ' + cluster.controller);
    console.log('cluster ' + cluster.clusterId);

    await admin.createTopics({
      topics: [
        {
          topic,
          numPartitions: 2,
          replicationFactor: 1,
          configEntries: [{ name: 'retention.ms', value: '3600000' }],
        },
      ],
      waitForLeaders: true,
    });
    await admin.createPartitions({ topicPartitions: [{ topic, count: 4 }] });
    const metadata = await admin.fetchTopicMetadata({ topics: [topic] });
    check(metadata.topics[0].partitions.length === 4, JSON.stringify(metadata));
    console.log('partitions 4');

    const resource = { type: ConfigResourceTypes.TOPIC, name: topic };
    let described = await admin.describeConfigs({
      resources: [{ ...resource, configNames: ['retention.ms'] }],
      includeSynonyms: false,
    });
    let retention = described.resources[0].configEntries.find((e) => e.configName === 'retention.ms');
    check(retention.configValue === '3600000' && !retention.isDefault, JSON.stringify(retention));
    await admin.alterConfigs({
      resources: [{ ...resource, configEntries: [{ name: 'retention.ms', value: '7200000' }] }],
    });
    described = await admin.describeConfigs({
      resources: [{ ...resource, configNames: ['retention.ms'] }],
      includeSynonyms: false,
    });
    retention = described.resources[0].configEntries.find((e) => e.configName === 'retention.ms');
    check(retention.configValue === '7200000', JSON.stringify(retention));
    console.log('retention.ms 7200000');

    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    try {
      for (const compression of [CompressionTypes.None, CompressionTypes.GZIP]) {
        const messages = [];
        for (let p = 0; p < 4; p++) {
          for (let i = 0; i < 25; i++) {
            messages.push({ partition: p, key: 'k' + i, value: 'idempotent ' + i });
          }
        }
        const results = await producer.send({ topic, messages, compression });
        check(results.every((r) => r.errorCode === 0), JSON.stringify(results));
      }
    } finally {
      await producer.disconnect();
    }
    console.log('idempotent sent 200');

    await admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: '10' }] });
    const offsets = await admin.fetchTopicOffsets(topic);
    offsets.sort((a, b) => a.partition - b.partition);
    check(offsets[0].low === '10' && offsets[0].high === '50', JSON.stringify(offsets[0]));
    check(offsets.slice(1).every((o) => o.low === '0' && o.high === '50'), JSON.stringify(offsets));
    console.log('deleted records below 10');

    const byTime = await admin.fetchTopicOffsetsByTimestamp(topic, Date.now() - 3600000);
    byTime.sort((a, b) => a.partition - b.partition);
    check(byTime[0].offset === '10' && byTime[1].offset === '0', JSON.stringify(byTime));
    console.log('offsets by timestamp');

    await admin.deleteTopics({ topics: [topic] });
    const topics = await admin.listTopics();
    check(!topics.includes(topic), 'still listed: ' + topics);
    console.log('deleted ' + topic);
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
