// Each operation of either API counted in the metrics (services/operations/metrics.ts) by its outcome.
import type { ApiName, Metrics } from '../operations/metrics.ts';
import { ApiError } from './errors.ts';

/** Runs an operation, counting it in the metrics by its outcome (`ok` or the error code) with its time. */
export async function measured<R>(metrics: Metrics, api: ApiName, operationId: string, work: () => Promise<R>): Promise<R> {
  const start = performance.now();
  let outcome = 'ok';
  try {
    return await work();
  } catch (error) {
    outcome = error instanceof ApiError ? error.code : 'internal_error';
    throw error;
  } finally {
    metrics.operation(api, operationId, outcome, (performance.now() - start) / 1000);
  }
}
