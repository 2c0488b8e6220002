// Backstage-style extension points: one plugin declares a point, others contribute to it without
// importing the declaring plugin (they import only the point object, usually from core).
export interface ExtensionPoint<T> {
  readonly id: string;
  /** Phantom field carrying the contribution type. */
  readonly __type?: T;
}

export function createExtensionPoint<T>(id: string): ExtensionPoint<T> {
  return { id };
}

export class ExtensionRegistry {
  private readonly declared = new Map<string, string>();
  private readonly contributions = new Map<string, { pluginId: string; value: unknown }[]>();

  declare(point: ExtensionPoint<unknown>, pluginId: string): void {
    const owner = this.declared.get(point.id);
    if (owner && owner !== pluginId) {
      throw new Error(`extension point "${point.id}" is declared by both "${owner}" and "${pluginId}"`);
    }
    this.declared.set(point.id, pluginId);
  }

  contribute<T>(point: ExtensionPoint<T>, value: T, pluginId: string): void {
    const list = this.contributions.get(point.id) ?? [];
    list.push({ pluginId, value });
    this.contributions.set(point.id, list);
  }

  /** Contributions in plugin load order. */
  get<T>(point: ExtensionPoint<T>): T[] {
    return (this.contributions.get(point.id) ?? []).map((c) => c.value as T);
  }

  /** Contributions with the id of the plugin that made each, in plugin load order. */
  entries<T>(point: ExtensionPoint<T>): { pluginId: string; value: T }[] {
    return (this.contributions.get(point.id) ?? []).map((c) => ({ pluginId: c.pluginId, value: c.value as T }));
  }

  /** Points that received contributions but that no loaded plugin declares. */
  undeclaredContributions(): string[] {
    return [...this.contributions.keys()].filter((id) => !this.declared.has(id));
  }
}
