export { Overview } from './Overview'
export { useBrushedSteps } from './useSpanModel'
