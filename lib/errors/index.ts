export * from './echomq.error';
export * from './unrecoverable.error';
