package io.brook.bench.harness;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * End-to-end latency at a fixed, open-loop send rate.
 *
 * One producer sends records at --rate records/s for --warmup-s + --duration-s seconds; a consumer in
 * the same JVM (manual assignment of all partitions, starting at the log end) receives them. Each
 * value carries a run id and the System.nanoTime() taken just before send(), so latency = receive
 * time - send time on one clock. Records sent during the warm-up are not counted.
 *
 * Prints one line: sent=.. received=.. achieved_rate=.. avg_ms=.. p50_ms=.. p99_ms=.. p999_ms=.. max_ms=..
 * Only the public Kafka client API is used, so it runs against any Kafka-protocol broker.
 */
public final class E2eLatency {

    public static void main(String[] args) throws Exception {
        String bootstrap = null, topic = null;
        int rate = 5000, recordSize = 1024;
        double durationS = 20, warmupS = 5;
        Properties pExtra = new Properties(), cExtra = new Properties(), common = new Properties();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--bootstrap-server": bootstrap = args[++i]; break;
                case "--topic": topic = args[++i]; break;
                case "--rate": rate = Integer.parseInt(args[++i]); break;
                case "--record-size": recordSize = Integer.parseInt(args[++i]); break;
                case "--duration-s": durationS = Double.parseDouble(args[++i]); break;
                case "--warmup-s": warmupS = Double.parseDouble(args[++i]); break;
                case "--producer-prop": putKv(pExtra, args[++i]); break;
                case "--consumer-prop": putKv(cExtra, args[++i]); break;
                case "--client-config": // both clients, e.g. security.protocol=SSL and a truststore
                    try (java.io.Reader in = java.nio.file.Files.newBufferedReader(java.nio.file.Path.of(args[++i]))) {
                        common.load(in);
                    }
                    break;
                default: usage("unknown argument " + a);
            }
        }
        if (bootstrap == null || topic == null) usage("--bootstrap-server and --topic are required");
        if (recordSize < 16) usage("--record-size must be >= 16");

        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        pp.put(ProducerConfig.ACKS_CONFIG, "all");
        pp.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        pp.putAll(common);
        pp.putAll(pExtra);

        Properties cp = new Properties();
        cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        cp.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        cp.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        cp.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        cp.putAll(common);
        cp.putAll(cExtra);

        final long runId = ThreadLocalRandom.current().nextLong();
        final long total = (long) Math.ceil(rate * (warmupS + durationS));
        final long[] lat = new long[(int) total];      // latency in ns, indexed by sequence number
        Arrays.fill(lat, -1L);
        final AtomicLong received = new AtomicLong();
        final long warmupCount = (long) Math.ceil(rate * warmupS);
        final String t = topic;

        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(cp);
             KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(pp)) {

            List<PartitionInfo> parts = null;
            long deadline = System.currentTimeMillis() + 30_000;
            while ((parts == null || parts.isEmpty()) && System.currentTimeMillis() < deadline) {
                parts = consumer.partitionsFor(topic, Duration.ofSeconds(10));
            }
            if (parts == null || parts.isEmpty()) throw new IllegalStateException("no partitions for " + topic);
            List<TopicPartition> tps = new ArrayList<>();
            for (PartitionInfo p : parts) tps.add(new TopicPartition(p.topic(), p.partition()));
            consumer.assign(tps);
            consumer.seekToEnd(tps);
            for (TopicPartition tp : tps) consumer.position(tp);   // resolve positions before producing

            // warm up the producer connection/metadata before the clock starts
            producer.partitionsFor(topic);

            Thread ct = new Thread(() -> {
                long idleSince = -1;
                while (!Thread.currentThread().isInterrupted()) {
                    ConsumerRecords<byte[], byte[]> recs;
                    try {
                        recs = consumer.poll(Duration.ofMillis(100));
                    } catch (org.apache.kafka.common.errors.InterruptException e) {
                        break;
                    }
                    long now = System.nanoTime();
                    for (ConsumerRecord<byte[], byte[]> r : recs) {
                        ByteBuffer b = ByteBuffer.wrap(r.value());
                        if (b.remaining() < 24 || b.getLong(0) != runId) continue;
                        long seq = b.getLong(8);
                        long sent = b.getLong(16);
                        if (seq >= 0 && seq < lat.length && lat[(int) seq] < 0) {
                            lat[(int) seq] = now - sent;
                            received.incrementAndGet();
                        }
                    }
                    if (received.get() >= total) break;
                }
            }, "e2e-consumer");
            ct.setDaemon(true);
            ct.start();

            final double intervalNs = 1e9 / rate;
            final long start = System.nanoTime();
            byte[] template = new byte[recordSize];
            ThreadLocalRandom.current().nextBytes(template);
            for (long seq = 0; seq < total; seq++) {
                long due = start + (long) (seq * intervalNs);
                long now;
                // sleep (no spinning: on a small box a spinning client would steal the broker's CPU);
                // if we fall behind, catch up without sleeping
                while ((now = System.nanoTime()) < due) LockSupport.parkNanos(due - now);
                byte[] v = template.clone();
                ByteBuffer b = ByteBuffer.wrap(v);
                b.putLong(0, runId);
                b.putLong(8, seq);
                b.putLong(16, System.nanoTime());
                producer.send(new ProducerRecord<>(t, v));
            }
            producer.flush();
            long sendEnd = System.nanoTime();
            ct.join(30_000);
            ct.interrupt();
            ct.join(5_000);

            double sendSecs = (sendEnd - start) / 1e9;
            long n = 0;
            long[] m = new long[(int) (total - warmupCount)];
            for (int i = (int) warmupCount; i < total; i++) if (lat[i] >= 0) m[(int) n++] = lat[i];
            m = Arrays.copyOf(m, (int) n);
            Arrays.sort(m);
            double sum = 0;
            for (long x : m) sum += x;
            System.out.printf("sent=%d received=%d measured=%d achieved_rate=%.0f avg_ms=%.3f p50_ms=%.3f p99_ms=%.3f p999_ms=%.3f max_ms=%.3f%n",
                    total, received.get(), n, total / sendSecs,
                    n == 0 ? Double.NaN : sum / n / 1e6, pct(m, 0.50), pct(m, 0.99), pct(m, 0.999),
                    n == 0 ? Double.NaN : m[(int) n - 1] / 1e6);
            if (received.get() < total) {
                System.err.println("WARNING: only " + received.get() + " of " + total + " records were received");
            }
        }
    }

    private static double pct(long[] sorted, double q) {
        if (sorted.length == 0) return Double.NaN;
        int idx = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, idx))] / 1e6;
    }

    private static void putKv(Properties p, String kv) {
        int eq = kv.indexOf('=');
        if (eq <= 0) usage("expected key=value, got " + kv);
        p.put(kv.substring(0, eq), kv.substring(eq + 1));
    }

    private static void usage(String msg) {
        System.err.println(msg);
        System.err.println("usage: E2eLatency --bootstrap-server HOST:PORT --topic T [--rate 5000] [--record-size 1024]"
                + " [--duration-s 20] [--warmup-s 5] [--producer-prop k=v]... [--consumer-prop k=v]... [--client-config FILE]");
        System.exit(2);
    }
}
