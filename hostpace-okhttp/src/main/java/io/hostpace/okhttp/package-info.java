/**
 * Hostpace for OkHttp: {@link io.hostpace.okhttp.HostpaceInterceptor}, an application interceptor
 * that paces every call of an {@code OkHttpClient} through the engine's host queues (SPEC I3), put
 * in place with {@code HostpaceInterceptor.pace(builder, engine)}, which also keeps OkHttp from
 * sending a request again by itself (SPEC I7).
 */
@NullMarked
package io.hostpace.okhttp;

import org.jspecify.annotations.NullMarked;
