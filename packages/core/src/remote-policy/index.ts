export { createRemotePolicy, type RemotePolicyOptions } from './remote-policy';
