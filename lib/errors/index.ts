export * from './echomq.error';
