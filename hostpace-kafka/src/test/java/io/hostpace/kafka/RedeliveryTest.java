package io.hostpace.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.BackOffHandler;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.DefaultBackOffHandler;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.KafkaMessageListenerContainer;
import org.springframework.kafka.listener.MessageListener;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.test.utils.ContainerTestUtils;
import org.springframework.util.backoff.FixedBackOff;
import org.springframework.web.client.RestClient;

/**
 * SPEC I4 with a real broker and a real server, both on 127.0.0.1: a Spring Kafka listener calls
 * the server through {@code RestClient}, the server refuses the first call with {@code 429} and
 * {@code Retry-After: 2}, and the record comes back to the listener after the container waited
 * 2 s (and the least jitter) through the back-off handler, though the back-off alone
 * ({@code FixedBackOff(1000, 2)}) said 1 s. The wait is read from the handler the container
 * waits through, not measured on the wall clock.
 */
class RedeliveryTest {

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void I4_aRecordRefusedWithRetryAfter2IsRedeliveredAfterAWaitOf2sThoughTheBackOffSaid1s() throws Exception {
    try (LoopbackKafka kafka = LoopbackKafka.start("enrich"); RefusingServer server = RefusingServer.start()) {
      List<Long> backOffSaid = new CopyOnWriteArrayList<>();
      List<Long> handlerWaited = new CopyOnWriteArrayList<>();
      List<String> failures = new CopyOnWriteArrayList<>();
      List<String> recovered = new CopyOnWriteArrayList<>();
      RetryAfterBackOffHandler handler = RetryAfterBackOffHandler.builder()
          .random(LEAST) // the least jitter: 100 ms
          .delegate(recording(handlerWaited, new DefaultBackOffHandler()))
          .build();
      BackOffHandler listening = new BackOffHandler() {
        @Override
        public void onNextBackOff(@Nullable MessageListenerContainer container, @Nullable Exception exception,
            long nextBackOff) {
          backOffSaid.add(nextBackOff);
          failures.add(exception == null ? "-" : exception.getClass().getSimpleName() + " <- "
              + (exception.getCause() == null ? "-" : exception.getCause().getClass().getName()));
          handler.onNextBackOff(container, exception, nextBackOff);
        }
      };
      DefaultErrorHandler errorHandler = new DefaultErrorHandler(
          (record, exception) -> recovered.add(String.valueOf(record.value())), new FixedBackOff(1000, 2), listening);

      RestClient rest = RestClient.create();
      ContainerProperties properties = new ContainerProperties("enrich");
      properties.setMessageListener((MessageListener<String, String>) record ->
          rest.get().uri(server.uri("/entity/" + record.value())).retrieve().toBodilessEntity());
      KafkaMessageListenerContainer<String, String> container = new KafkaMessageListenerContainer<>(
          new DefaultKafkaConsumerFactory<>(Map.of(
              ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
              ConsumerConfig.GROUP_ID_CONFIG, "hostpace-test",
              ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
              ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
              ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class)),
          properties);
      container.setCommonErrorHandler(errorHandler);
      DefaultKafkaProducerFactory<String, String> producers = new DefaultKafkaProducerFactory<>(Map.of(
          ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
          ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
          ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class));
      container.start();
      try {
        ContainerTestUtils.waitForAssignment(container, 1);
        new KafkaTemplate<>(producers).send("enrich", "Q42").get(30, TimeUnit.SECONDS);

        assertThat(server.awaitAnswer(60)).as("the redelivered record was answered").isTrue();
      } finally {
        container.stop();
        producers.destroy();
      }

      // Refused once, redelivered once: the back-off the handler waited is the host's Retry-After
      // (2 s, and the least jitter), not the container's own 1 s.
      assertThat(server.arrivals).containsExactly("/entity/Q42", "/entity/Q42");
      assertThat(backOffSaid).containsExactly(1000L);
      assertThat(handlerWaited).containsExactly(2000L + 100);
      assertThat(failures).containsExactly(
          "ListenerExecutionFailedException <- org.springframework.web.client.HttpClientErrorException$TooManyRequests");
      assertThat(recovered).isEmpty();
      assertThat(container.getAssignedPartitions()).isNullOrEmpty();
    }
  }

  /** Draws the least value it may. */
  private static final RandomGenerator LEAST = new RandomGenerator() {
    @Override
    public long nextLong() {
      return 0;
    }

    @Override
    public long nextLong(long origin, long bound) {
      return origin;
    }
  };

  /** A delegate that writes down each wait, then has {@code next} carry it out. */
  private static BackOffHandler recording(List<Long> waits, BackOffHandler next) {
    return new BackOffHandler() {
      @Override
      public void onNextBackOff(@Nullable MessageListenerContainer container, @Nullable Exception exception,
          long nextBackOff) {
        waits.add(nextBackOff);
        next.onNextBackOff(container, exception, nextBackOff);
      }

      @Override
      public void onNextBackOff(MessageListenerContainer container, TopicPartition partition, long nextBackOff) {
        next.onNextBackOff(container, partition, nextBackOff);
      }
    };
  }
}
