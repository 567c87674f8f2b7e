// The storage boundary of projects; the console creates them, the server reads their policy.

export type DlpMode = "off" | "warn" | "block";

export interface Project {
  id: string;
  name: string;
  dlpMode: DlpMode;
  dlpOcr: boolean;
  /** Types scanned; null means every type (server/dlp). */
  dlpTypes: string[] | null;
  createdAt: string;
}

export interface ProjectRepository {
  create(name: string): Promise<Project>;
  get(id: string): Promise<Project | undefined>;
  list(): Promise<Project[]>;
  /** False when the project does not exist. */
  setDlpPolicy(id: string, mode: DlpMode, ocr: boolean): Promise<boolean>;
  /** Null: every type. */
  setDlpTypes(id: string, types: string[] | null): Promise<boolean>;
}
