package io.hostpace.examples;

// tag::kafka[]
import io.hostpace.kafka.RetryAfterBackOffHandler;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.listener.ConsumerRecordRecoverer;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.support.ExponentialBackOffWithMaxRetries;
// end::kafka[]

/**
 * Spring Kafka: a listener whose HTTP call was refused is redelivered after the host's
 * {@code Retry-After}, or the back-off's own delay when that is longer.
 */
final class KafkaExample {

  // tag::kafka[]
  static DefaultErrorHandler errorHandler(ConsumerRecordRecoverer recoverer) {
    return new DefaultErrorHandler(recoverer, new ExponentialBackOffWithMaxRetries(6),
        RetryAfterBackOffHandler.create());
  }

  static void configure(ConcurrentKafkaListenerContainerFactory<?, ?> containerFactory,
      ConsumerRecordRecoverer recoverer) {
    containerFactory.setCommonErrorHandler(errorHandler(recoverer));
  }
  // end::kafka[]

  private KafkaExample() {}
}
