export {
  type FakeFault,
  type FakeRequestRecord,
  type FakeTinker,
  type FakeTinkerOptions,
  startFakeTinker,
} from './fake-service';
export { createTestTokenizer, type TestTokenizer } from './test-tokenizer';
