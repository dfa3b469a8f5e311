/**
 * Hostpace for Apache Jena (SPEC I2): {@link io.hostpace.jena.HostpaceJena#install} paces every
 * SPARQL query, update and {@code SERVICE} clause Jena sends, and
 * {@link io.hostpace.jena.HostpaceJena#contextOf} gives a query limits of its own.
 */
@NullMarked
package io.hostpace.jena;

import org.jspecify.annotations.NullMarked;
