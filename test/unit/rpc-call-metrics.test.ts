import { expect } from 'chai';
import { Metrics } from '@evmnode/core/internal';

/** The exposition lines of one metric family, without its HELP and TYPE lines. */
async function samples(metrics: Metrics, family: string): Promise<string[]> {
  const text = await metrics.registry.metrics();
  return text.split('\n').filter((line) => line.startsWith(family) && !line.startsWith('#'));
}

describe('Metrics: JSON-RPC calls', () => {
  it('exports calls per method, cumulative duration buckets (le is inclusive), sum and count', async () => {
    const metrics = new Metrics();
    const calls = metrics.rpcCalls;
    calls.record('eth_call', 0.0001, undefined); // on the first bound: counted in it
    calls.record('eth_call', 0.002, undefined);
    calls.record('eth_call', 45, undefined); // above every bound: only +Inf
    calls.record('net_version', 0.00005, undefined);

    expect(await samples(metrics, 'evmnode_rpc_requests_total')).to.deep.equal([
      'evmnode_rpc_requests_total{method="eth_call"} 3',
      'evmnode_rpc_requests_total{method="net_version"} 1',
    ]);
    const ethCall = (await samples(metrics, 'evmnode_rpc_request_duration_seconds')).filter((line) =>
      line.includes('method="eth_call"'),
    );
    expect(ethCall).to.deep.equal([
      'evmnode_rpc_request_duration_seconds_bucket{le="0.0001",method="eth_call"} 1',
      'evmnode_rpc_request_duration_seconds_bucket{le="0.0005",method="eth_call"} 1',
      'evmnode_rpc_request_duration_seconds_bucket{le="0.001",method="eth_call"} 1',
      'evmnode_rpc_request_duration_seconds_bucket{le="0.005",method="eth_call"} 2',
      'evmnode_rpc_request_duration_seconds_bucket{le="0.01",method="eth_call"} 2',
      'evmnode_rpc_request_duration_seconds_bucket{le="0.05",method="eth_call"} 2',
      'evmnode_rpc_request_duration_seconds_bucket{le="0.1",method="eth_call"} 2',
      'evmnode_rpc_request_duration_seconds_bucket{le="0.5",method="eth_call"} 2',
      'evmnode_rpc_request_duration_seconds_bucket{le="1",method="eth_call"} 2',
      'evmnode_rpc_request_duration_seconds_bucket{le="5",method="eth_call"} 2',
      'evmnode_rpc_request_duration_seconds_bucket{le="30",method="eth_call"} 2',
      'evmnode_rpc_request_duration_seconds_bucket{le="+Inf",method="eth_call"} 3',
      'evmnode_rpc_request_duration_seconds_sum{method="eth_call"} 45.0021',
      'evmnode_rpc_request_duration_seconds_count{method="eth_call"} 3',
    ]);
  });

  it('exports errors per method and code, and nothing for a method without errors', async () => {
    const metrics = new Metrics();
    const calls = metrics.rpcCalls;
    calls.record('eth_call', 0.001, 3);
    calls.record('eth_call', 0.001, 3);
    calls.record('eth_call', 0.001, -32602);
    calls.record('eth_chainId', 0.001, undefined);

    expect(await samples(metrics, 'evmnode_rpc_errors_total')).to.deep.equal([
      'evmnode_rpc_errors_total{method="eth_call",code="3"} 2',
      'evmnode_rpc_errors_total{method="eth_call",code="-32602"} 1',
    ]);
  });

  it('answers getMetricsAsJSON with the same histogram', async () => {
    const metrics = new Metrics();
    metrics.rpcCalls.record('eth_chainId', 0.0003, undefined);
    const histogram = (await metrics.registry.getMetricsAsJSON()).find(
      (metric) => metric.name === 'evmnode_rpc_request_duration_seconds',
    );
    expect(histogram?.type).to.equal('histogram');
    expect(histogram?.values).to.deep.include({
      labels: { le: 0.0005, method: 'eth_chainId' },
      value: 1,
      metricName: 'evmnode_rpc_request_duration_seconds_bucket',
    });
    expect(histogram?.values).to.deep.include({
      labels: { method: 'eth_chainId' },
      value: 1,
      metricName: 'evmnode_rpc_request_duration_seconds_count',
    });
  });
});
