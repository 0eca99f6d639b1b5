/** Cluster metadata: records, the immutable image, and the controller logic in plain Java. */
package io.brook.metadata;
