// Run by SaslIT and SaslSslAclIT: node sasl-scram.js BOOTSTRAP TOPIC MECHANISM USER PASSWORD [CA_PEM]
// kafkajs with SCRAM, over SASL_PLAINTEXT or, given the CA certificate that signed the broker's,
// over SASL_SSL: a wrong password is refused, the right one produces records and a consumer reads
// them back. Prints one line per finding; exits non-zero on any error.
'use strict';

const fs = require('fs');
const { Kafka, logLevel } = require('kafkajs');

const [bootstrap, topic, mechanism, username, password, caPem] = process.argv.slice(2);
if (!password) {
  console.error('usage: node sasl-scram.js BOOTSTRAP TOPIC MECHANISM USER PASSWORD [CA_PEM]');
  process.exit(2);
}

const MESSAGES = 10;

function client(secret) {
  return new Kafka({
    clientId: 'brook-kafkajs-sasl',
    brokers: [bootstrap],
    logLevel: logLevel.NOTHING,
    retry: { retries: 2 },
    sasl: { mechanism: mechanism.toLowerCase(), username, password: secret },
    // The broker's certificate names 127.0.0.1, which TLS checks as it would a host name.
    ssl: caPem ? { ca: [fs.readFileSync(caPem, 'utf-8')] } : false,
  });
}

async function main() {
  const refused = client(password + '-wrong').admin();
  try {
    await refused.connect();
    await refused.listTopics();
    throw new Error('check failed: a wrong password was accepted');
  } catch (e) {
    if (e.message.startsWith('check failed')) {
      throw e;
    }
    console.log('wrong password refused: ' + e.name);
  } finally {
    await refused.disconnect();
  }

  const kafka = client(password);
  const producer = kafka.producer();
  await producer.connect();
  const messages = [];
  for (let i = 0; i < MESSAGES; i++) {
    messages.push({ value: 'm' + i });
  }
  await producer.send({ topic, messages });
  await producer.disconnect();
  console.log('sent ' + MESSAGES);

  const consumer = kafka.consumer({ groupId: 'brook-kafkajs-sasl' });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  let consumed = 0;
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('check failed: consumed ' + consumed)), 60000);
    consumer
      .run({
        eachMessage: async () => {
          consumed++;
          if (consumed === MESSAGES) {
            clearTimeout(timer);
            resolve();
          }
        },
      })
      .catch(reject);
  });
  await consumer.disconnect();
  console.log('consumed ' + consumed);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
