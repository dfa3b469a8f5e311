package io.hostpace.jena;

import org.apache.jena.graph.Node;
import org.apache.jena.sparql.algebra.op.OpService;
import org.apache.jena.sparql.engine.ExecutionContext;
import org.apache.jena.sparql.engine.QueryIterator;
import org.apache.jena.sparql.engine.binding.Binding;
import org.apache.jena.sparql.service.single.ChainingServiceExecutor;
import org.apache.jena.sparql.service.single.ServiceExecutor;

/**
 * A link in front of Jena's {@code SERVICE} executors that makes sure the client Jena is about to
 * choose for a {@code SERVICE} clause is a paced one, then passes the clause on unchanged.
 *
 * <p>{@code Service.exec} chooses a clause's client itself: the {@code RegistryHttpClient} entry
 * for the service URL, else the query context's {@code ARQ.httpQueryClient}, else Jena's default.
 * The installation paced the default and the registry as they were when it was made; this link
 * catches what came after: a client registered since, or one in the query's context, which it
 * replaces in that context with a paced one that sends through it.
 */
final class PacingServiceLink implements ChainingServiceExecutor {

  private final HostpaceJena.Installation installation;

  PacingServiceLink(HostpaceJena.Installation installation) {
    this.installation = installation;
  }

  @Override
  public QueryIterator createExecution(
      OpService opExecute, OpService opOriginal, Binding binding, ExecutionContext execCxt, ServiceExecutor chain) {
    Node service = opExecute.getService();
    if (service.isURI()) {
      installation.paceServiceClients(service.getURI(), execCxt.getContext());
    }
    return chain.createExecution(opExecute, opOriginal, binding, execCxt);
  }
}
