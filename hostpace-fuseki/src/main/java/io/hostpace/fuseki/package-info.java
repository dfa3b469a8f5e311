/**
 * SPARQL endpoints on 127.0.0.1 that refuse clients who ask too often, the way public ones
 * do: {@link io.hostpace.fuseki.GatedEndpoint} serves a dataset with embedded Fuseki behind a
 * {@link io.hostpace.fuseki.Gate}. For tests and demos of clients, never for serving.
 */
@NullMarked
package io.hostpace.fuseki;

import org.jspecify.annotations.NullMarked;
