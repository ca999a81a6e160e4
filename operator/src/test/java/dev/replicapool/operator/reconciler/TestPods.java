package dev.replicapool.operator.reconciler;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;

/** Pods as a kubelet would leave them (no kubelet runs): the test writes their status. */
final class TestPods {
  private TestPods() {}

  /** A running, Ready Pod labelled {@code app=<app>} with this IP. */
  static Pod ready(KubernetesClient client, String namespace, String name, String app, String ip) {
    Pod created =
        client
            .pods()
            .inNamespace(namespace)
            .resource(
                new PodBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .addToLabels("app", app)
                    .endMetadata()
                    .withNewSpec()
                    .addNewContainer()
                    .withName("app")
                    .withImage("app:1")
                    .endContainer()
                    .endSpec()
                    .build())
            .create();
    created.setStatus(
        new PodStatusBuilder()
            .withPhase("Running")
            .withPodIP(ip)
            .withConditions(new PodConditionBuilder().withType("Ready").withStatus("True").build())
            .build());
    return client.pods().inNamespace(namespace).resource(created).updateStatus();
  }
}
