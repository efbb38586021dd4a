export { createDubReader, type DubReaderOptions } from './dub-reader.ts';
