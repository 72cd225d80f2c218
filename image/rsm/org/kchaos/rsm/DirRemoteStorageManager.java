package org.kchaos.rsm;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Optional;

import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.server.log.remote.storage.LogSegmentData;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteResourceNotFoundException;
import org.apache.kafka.server.log.remote.storage.RemoteStorageException;
import org.apache.kafka.server.log.remote.storage.RemoteStorageManager;

/**
 * A RemoteStorageManager (KIP-405) that keeps the remote tier in a plain
 * directory: kchaos bind-mounts one host directory into every broker, so
 * the tier is shared, survives kill -9 and can be inspected from the host.
 * Kafka's own LocalTieredStorage lives in its storage test artifact, which
 * Maven Central does not serve for every release kchaos knows (4.2.2 and
 * 4.4.0 lack it), so kchaos carries this one, written against the public
 * plugin interface only (identical from 3.9 to 4.4).
 *
 * Layout: DIR/TOPIC-PARTITION-TOPICID/STARTOFFSET-SEGMENTID.SUFFIX, one
 * file per segment part. A segment is written under a temporary name and
 * renamed, so a broker killed mid-copy leaves no half segment under a
 * final name (Kafka retries the copy with a fresh segment id).
 *
 * Config: rsm.config.dir (remote.log.storage.manager.impl.prefix defaults
 * to rsm.config.), the directory of the tier.
 */
public final class DirRemoteStorageManager implements RemoteStorageManager {
    private Path root;

    @Override
    public void configure(Map<String, ?> configs) {
        Object dir = configs.get("dir");
        if (dir == null) {
            throw new IllegalArgumentException("DirRemoteStorageManager: rsm.config.dir is not set");
        }
        root = Paths.get(dir.toString());
        try {
            Files.createDirectories(root);
        } catch (IOException e) {
            throw new IllegalArgumentException("DirRemoteStorageManager: cannot create " + root, e);
        }
    }

    private Path base(RemoteLogSegmentMetadata m) {
        TopicIdPartition tp = m.remoteLogSegmentId().topicIdPartition();
        String part = tp.topic() + "-" + tp.partition() + "-" + tp.topicId();
        String name = String.format("%020d-%s", m.startOffset(), m.remoteLogSegmentId().id());
        return root.resolve(part).resolve(name);
    }

    private static Path part(Path base, String suffix) {
        return base.resolveSibling(base.getFileName() + suffix);
    }

    private static String suffix(IndexType t) {
        switch (t) {
            case OFFSET: return ".index";
            case TIMESTAMP: return ".timeindex";
            case PRODUCER_SNAPSHOT: return ".snapshot";
            case TRANSACTION: return ".txnindex";
            case LEADER_EPOCH: return ".leader-epoch-checkpoint";
            default: throw new IllegalArgumentException("unknown index type " + t);
        }
    }

    private static void put(Path from, Path to) throws IOException {
        Path tmp = to.resolveSibling(to.getFileName() + ".tmp");
        Files.copy(from, tmp, StandardCopyOption.REPLACE_EXISTING);
        Files.move(tmp, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    @Override
    public Optional<RemoteLogSegmentMetadata.CustomMetadata> copyLogSegmentData(
            RemoteLogSegmentMetadata m, LogSegmentData d) throws RemoteStorageException {
        Path b = base(m);
        try {
            Files.createDirectories(b.getParent());
            put(d.offsetIndex(), part(b, suffix(IndexType.OFFSET)));
            put(d.timeIndex(), part(b, suffix(IndexType.TIMESTAMP)));
            if (d.transactionIndex().isPresent()) {
                put(d.transactionIndex().get(), part(b, suffix(IndexType.TRANSACTION)));
            }
            put(d.producerSnapshotIndex(), part(b, suffix(IndexType.PRODUCER_SNAPSHOT)));
            ByteBuffer epochs = d.leaderEpochIndex().duplicate();
            Path ep = part(b, suffix(IndexType.LEADER_EPOCH));
            Path eptmp = ep.resolveSibling(ep.getFileName() + ".tmp");
            try (FileChannel ch = FileChannel.open(eptmp, StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                while (epochs.hasRemaining()) {
                    ch.write(epochs);
                }
            }
            Files.move(eptmp, ep, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            // The log last: its presence means the segment is whole.
            put(d.logSegment(), part(b, ".log"));
        } catch (IOException e) {
            throw new RemoteStorageException("copy " + b + ": " + e, e);
        }
        return Optional.empty();
    }

    private static InputStream range(Path p, long start, long endInclusive) throws RemoteStorageException {
        try {
            FileChannel ch = FileChannel.open(p, StandardOpenOption.READ);
            long size = ch.size();
            long end = Math.min(size, endInclusive == Long.MAX_VALUE ? size : endInclusive + 1);
            if (start >= end) {
                ch.close();
                return new ByteArrayInputStream(new byte[0]);
            }
            ch.position(start);
            InputStream in = Channels.newInputStream(ch);
            final long[] left = {end - start};
            return new InputStream() {
                @Override public int read() throws IOException {
                    if (left[0] <= 0) return -1;
                    int c = in.read();
                    if (c >= 0) left[0]--;
                    return c;
                }
                @Override public int read(byte[] buf, int off, int len) throws IOException {
                    if (left[0] <= 0) return -1;
                    int n = in.read(buf, off, (int) Math.min(len, left[0]));
                    if (n > 0) left[0] -= n;
                    return n;
                }
                @Override public void close() throws IOException { in.close(); }
            };
        } catch (NoSuchFileException e) {
            throw new RemoteResourceNotFoundException("no remote file " + p);
        } catch (IOException e) {
            throw new RemoteStorageException("read " + p + ": " + e, e);
        }
    }

    @Override
    public InputStream fetchLogSegment(RemoteLogSegmentMetadata m, int startPosition) throws RemoteStorageException {
        return range(part(base(m), ".log"), startPosition, Long.MAX_VALUE);
    }

    @Override
    public InputStream fetchLogSegment(RemoteLogSegmentMetadata m, int startPosition, int endPosition)
            throws RemoteStorageException {
        return range(part(base(m), ".log"), startPosition, endPosition);
    }

    @Override
    public InputStream fetchIndex(RemoteLogSegmentMetadata m, IndexType t) throws RemoteStorageException {
        return range(part(base(m), suffix(t)), 0, Long.MAX_VALUE);
    }

    @Override
    public void deleteLogSegmentData(RemoteLogSegmentMetadata m) throws RemoteStorageException {
        Path b = base(m);
        try {
            // The log first: without it the segment is gone, whatever remains.
            Files.deleteIfExists(part(b, ".log"));
            for (IndexType t : IndexType.values()) {
                Files.deleteIfExists(part(b, suffix(t)));
            }
        } catch (IOException e) {
            throw new RemoteStorageException("delete " + b + ": " + e, e);
        }
    }

    @Override
    public void close() {}
}
