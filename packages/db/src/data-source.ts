import { DataSource, type DataSourceOptions } from 'typeorm';

export interface DataSourceSettings {
  url: string;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities: Function[];
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  migrations: Function[];
  poolSize?: number;
  logging?: boolean;
}

/** One DataSource for all plugins' entities; the schema only changes through migrations. */
export function createDataSource(settings: DataSourceSettings): DataSource {
  const options: DataSourceOptions = {
    type: 'postgres',
    url: settings.url,
    entities: settings.entities,
    migrations: settings.migrations,
    migrationsTableName: 'filigrane_migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    logging: settings.logging ?? false,
    extra: { max: settings.poolSize ?? 10 },
  };
  return new DataSource(options);
}
