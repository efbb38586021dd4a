export { createFirstPromoterReader, type FirstPromoterReaderOptions } from './firstpromoter-reader.ts';
