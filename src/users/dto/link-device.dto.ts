import { DeviceIdProperty } from '../../auth/users/dto/device-id.js';

export class LinkDeviceDto {
  @DeviceIdProperty()
  deviceId: string;
}
