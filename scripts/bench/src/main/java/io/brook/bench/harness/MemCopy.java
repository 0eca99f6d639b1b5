package io.brook.bench.harness;

import java.nio.ByteBuffer;

/**
 * Memory copy bandwidth: repeatedly copies a large buffer (default 256 MiB, far larger than any cache)
 * with System.arraycopy (heap) and ByteBuffer.put (direct, off-heap), prints GiB/s of bytes copied
 * (read + write traffic on the memory bus is twice that).
 *
 * usage: MemCopy [MiB=256] [iterations=20]
 */
public final class MemCopy {
    public static void main(String[] args) {
        int mib = args.length > 0 ? Integer.parseInt(args[0]) : 256;
        int iters = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        int n = mib << 20;
        byte[] a = new byte[n], b = new byte[n];
        for (int i = 0; i < n; i += 4096) { a[i] = (byte) i; b[i] = 1; }
        for (int i = 0; i < 3; i++) System.arraycopy(a, 0, b, 0, n);           // warm-up / page-in
        long t0 = System.nanoTime();
        for (int i = 0; i < iters; i++) { System.arraycopy(a, 0, b, 0, n); System.arraycopy(b, 0, a, 0, n); }
        double heap = 2.0 * iters * n / ((System.nanoTime() - t0) / 1e9) / (1 << 30);

        ByteBuffer da = ByteBuffer.allocateDirect(n), db = ByteBuffer.allocateDirect(n);
        for (int i = 0; i < 3; i++) { da.clear(); db.clear(); db.put(da); }
        t0 = System.nanoTime();
        for (int i = 0; i < iters; i++) {
            da.clear(); db.clear(); db.put(da);
            da.clear(); db.clear(); da.put(db);
        }
        double direct = 2.0 * iters * n / ((System.nanoTime() - t0) / 1e9) / (1 << 30);
        System.out.printf("memcopy buffer_mib=%d heap_arraycopy_gib_s=%.2f direct_bytebuffer_gib_s=%.2f%n", mib, heap, direct);
    }
}
