package io.brook.storage.remote;

/**
 * Where a remote segment is in its life (KIP-405's {@code RemoteLogSegmentState}). Only {@link
 * #COPY_SEGMENT_FINISHED} segments are read; a segment left in a STARTED state by a crash is
 * deleted from the store when its partition's tier is next opened.
 */
public enum RemoteSegmentState {
  COPY_SEGMENT_STARTED,
  COPY_SEGMENT_FINISHED,
  DELETE_SEGMENT_STARTED,
  DELETE_SEGMENT_FINISHED
}
